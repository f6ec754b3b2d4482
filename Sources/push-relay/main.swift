print("push-relay")
