import EDM

/// A property reached from the current entity, possibly through single-valued navigations
/// (`PersonCar/Car/make` is two navigations and the property `make`).
public struct MemberPath: Sendable {
    public let navigations: [NavigationProperty]
    public let property: Property

    public init(navigations: [NavigationProperty], property: Property) {
        self.navigations = navigations
        self.property = property
    }

    /// True when the value can be null: the property is nullable, or a navigation on the way
    /// may find no entity (its target end is "0..1"), which the LEFT JOIN turns into null.
    public var mayBeNull: Bool {
        property.isNullable || navigations.contains { $0.targetMultiplicity != "1" }
    }

    /// The path as written in a URI: `PersonCar/Car/make`.
    public var text: String {
        (navigations.map(\.name) + [property.name]).joined(separator: "/")
    }
}
