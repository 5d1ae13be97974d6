"""Reading and writing data and model files."""
