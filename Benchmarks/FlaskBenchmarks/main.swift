print("soon")
