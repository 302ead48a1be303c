print("dealer-codegen: not built yet")
