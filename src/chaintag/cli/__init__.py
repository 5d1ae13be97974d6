"""chaintag.cli"""
