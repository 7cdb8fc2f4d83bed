"""Neural network connections: linear, convolution, embedding and friends."""
