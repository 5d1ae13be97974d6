"""The library's entry points above the learners: corpora with derived columns, training, tagging.

This layer is what the command line calls: ``chaintag.cli`` parses and
prints, and every command's work is a function here (or below).
"""
