"""Links: caffe."""
