import EDM

/// What `$select` keeps of the entities at one level of the response.
/// `$select=firstName,PersonCar/Car/model` keeps firstName and PersonCar at the top level, and
/// below PersonCar only Car, and below Car only model.
public struct SelectNode: Sendable {
    /// True for `*`: every structural property.
    public var allProperties = false
    public var properties: Set<String> = []
    /// Navigation properties kept, with what is kept of the entities they lead to
    /// (nil: the whole entity, as when the navigation itself is named).
    public var navigations: [String: SelectNode?] = [:]

    public init() {}

    public func includes(property name: String) -> Bool { allProperties || properties.contains(name) }

    public func includes(navigation name: String) -> Bool { allProperties || navigations.keys.contains(name) }

    /// What is selected below a navigation property; nil means everything.
    public func child(_ name: String) -> SelectNode? {
        if let entry = navigations[name] { return entry }
        return nil
    }
}
