// placeholder: the profile reader (written next)
