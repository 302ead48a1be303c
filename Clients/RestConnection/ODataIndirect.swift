/// Holds a value out of line, so that entity types can contain each other through to-one
/// navigation properties (`Employee.manager: Employee?`) without being infinitely large.
public indirect enum ODataIndirect<Value> {
    case value(Value)

    public init(_ value: Value) { self = .value(value) }

    public var value: Value {
        switch self {
        case .value(let value): return value
        }
    }
}

extension ODataIndirect: Sendable where Value: Sendable {}
extension ODataIndirect: Equatable where Value: Equatable {}
extension ODataIndirect: Hashable where Value: Hashable {}
