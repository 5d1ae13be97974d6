"""chaintag.experiments"""
