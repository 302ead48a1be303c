import EDM

/// One navigation property to expand, and what to expand below it.
/// `$expand=A,A/B,C` becomes the tree A{B}, C.
public struct ExpandNode: Sendable {
    public let navigation: NavigationProperty
    public var children: [ExpandNode]

    public init(navigation: NavigationProperty, children: [ExpandNode] = []) {
        self.navigation = navigation
        self.children = children
    }

    public var depth: Int { 1 + (children.map(\.depth).max() ?? 0) }

    public var nodeCount: Int { 1 + children.reduce(0) { $0 + $1.nodeCount } }
}
