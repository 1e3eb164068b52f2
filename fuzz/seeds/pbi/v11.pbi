#PBI 1.1
#a comment
S\x3at John:8/8/8/8/8/8/8/K1k5:#2::::::

x:y
