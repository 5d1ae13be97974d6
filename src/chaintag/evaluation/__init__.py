"""chaintag.evaluation"""
