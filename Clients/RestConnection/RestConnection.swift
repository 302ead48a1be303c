// placeholder: replaced by the clients work
