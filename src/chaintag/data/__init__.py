"""chaintag.data"""
