import Foundation

/// The parameters of a service operation call, in the order given: each a typed value written as
/// its OData literal (`miles=60000`, `name='O''Brien'`, `since=datetime'2020-01-01T00:00:00'`).
/// A nil value is left out, which is how an optional parameter is not given.
public struct ODataFunctionParameters: Sendable, ExpressibleByDictionaryLiteral {
    public private(set) var values: [(name: String, value: (any ODataLiteralConvertible)?)]

    public init(dictionaryLiteral elements: (String, (any ODataLiteralConvertible)?)...) {
        values = elements.map { (name: $0.0, value: $0.1) }
    }

    public init(_ values: [(name: String, value: (any ODataLiteralConvertible)?)]) {
        self.values = values
    }

    /// As query items, values not yet percent-encoded: `RestConnection` encodes each once.
    public var items: [URLQueryItem] {
        values.compactMap { entry in
            entry.value.map { URLQueryItem(name: entry.name, value: $0.odataLiteralText) }
        }
    }
}
