"""chaintag.decoding"""
