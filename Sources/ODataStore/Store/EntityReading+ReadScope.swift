extension EntityReading {
    /// A read scope of any number of statements.
    public func readScope<T>(_ body: () throws -> T) throws -> T {
        try readScope(.severalStatements, body)
    }
}
