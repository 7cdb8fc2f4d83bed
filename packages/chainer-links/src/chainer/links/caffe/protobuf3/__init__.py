"""Caffe's protobuf messages (:mod:`~chainer.links.caffe.protobuf3.caffe_pb2`)."""
