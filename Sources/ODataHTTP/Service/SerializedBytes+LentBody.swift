import HTTPCore
import ODataSerialization

/// A serializer's document is sent from the buffer it was written to.
extension SerializedBytes: LentBody {}
