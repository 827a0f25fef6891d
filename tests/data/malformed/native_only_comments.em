# a puzzle with no content
# at all
