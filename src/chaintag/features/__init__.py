"""chaintag.features"""
