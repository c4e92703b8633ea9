"""placeholder"""
FAMILY = "redistribute-data"
