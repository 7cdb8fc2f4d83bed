"""Links: rnn."""
