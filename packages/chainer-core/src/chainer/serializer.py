"""Base classes of serializers and deserializers."""

from __future__ import annotations


class AbstractSerializer:
    """Abstract base class of all serializers and deserializers.

    A serializer is a tree of named entries: ``serializer['child']`` gives the
    serializer of a child object, and ``serializer(key, value)`` saves or loads
    one entry. Objects take part by defining ``serialize(serializer)``, which
    writes ``self.x = serializer('x', self.x)`` for each value to keep.
    """

    def __getitem__(self, key):
        """Gets a child serializer.

        Args:
            key (str): Name of the child object.

        Returns:
            AbstractSerializer: Serializer of the child, using ``key`` as a
            path component.
        """
        # Subclasses define this; a bare base object has no storage.
        raise TypeError(
            f"{type(self).__name__} does not define __getitem__, so it cannot "
            "give child serializers"
        )

    def __call__(self, key, value):
        """Serializes or deserializes a value by given name.

        A serializer saves ``value`` at ``key`` and returns it unchanged. A
        deserializer loads the entry at ``key``: arrays are copied into
        ``value`` in place, while for scalars and strings ``value`` only
        gives the type to convert to and the converted value is returned.
        If ``value`` is ``None``, the loaded array is returned as it is.

        Args:
            key (str): Name of the serialization entry.
            value (scalar, array, None, or str): Object to be (de)serialized.
                ``None`` is only supported by deserializers.

        Returns:
            Serialized or deserialized value.
        """
        raise TypeError(
            f"{type(self).__name__} does not define __call__(key, value), so it "
            "cannot (de)serialize values"
        )


class Serializer(AbstractSerializer):
    """Base class of all serializers."""

    def save(self, obj):
        """Saves an object by this serializer.

        This is equivalent to ``obj.serialize(self)``.

        Args:
            obj: Target object to be serialized; it must have a
                ``serialize(serializer)`` method.
        """
        _serialize(self, obj)


class Deserializer(AbstractSerializer):
    """Base class of all deserializers."""

    def load(self, obj):
        """Loads an object from this deserializer.

        This is equivalent to ``obj.serialize(self)``.

        Args:
            obj: Target object to be deserialized; it must have a
                ``serialize(serializer)`` method.
        """
        _serialize(self, obj)


def _serialize(serializer, obj):
    serialize = getattr(obj, "serialize", None)
    if not callable(serialize):
        raise TypeError(
            f"cannot (de)serialize an object of type {type(obj).__name__}: it has "
            "no serialize(serializer) method"
        )
    serialize(serializer)
