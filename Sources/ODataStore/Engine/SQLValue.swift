/// A column's value as the store reads and binds it, whatever the engine: SQLite's five
/// storage classes, to which every engine's column types map (`SQLValue+EDM.swift`).
public enum SQLValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])
}
