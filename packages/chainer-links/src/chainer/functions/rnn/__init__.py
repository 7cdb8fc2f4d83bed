"""Recurrent neural network functions."""
