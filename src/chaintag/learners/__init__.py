"""chaintag.learners"""
