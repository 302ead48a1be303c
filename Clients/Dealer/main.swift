print("dealer: not built yet")
