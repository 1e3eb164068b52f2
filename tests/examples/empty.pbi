#PBI 1.2
# A collection with no problem in it yet.
