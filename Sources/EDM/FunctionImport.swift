/// A service operation (`FunctionImport`): a named, parameterized query that clients call by
/// URL, `GET /CarsDueForService?miles=60000`. The schema defines what it answers with the
/// storage annotations `store:Filter`, `store:OrderBy`, `store:Aggregate` and `store:From`
/// (see `StorageAnnotations`), so that no code is needed for one.
public final class FunctionImport: @unchecked Sendable, CustomStringConvertible {
    /// A parameter, passed as a query option of its name in URI literal form (`miles=60000`,
    /// `name='Bob'`).
    public struct Parameter: Sendable {
        public let name: String
        public let type: PrimitiveType
        public let isNullable: Bool
    }

    /// What an aggregate computes over the entities the filter selects.
    public enum AggregateFunction: String, Sendable, CaseIterable {
        case count, sum, min, max, avg
    }

    public struct Aggregate: Sendable {
        public let function: AggregateFunction
        /// The property aggregated; nil for `count`.
        public let property: Property?
    }

    public enum Result: Sendable {
        /// `Collection(Type)`: the entities of `entitySet` the filter selects, a collection like
        /// the set itself (paged, with `$filter`, `$orderby`, `$top`, ... on top).
        case entities
        /// A primitive value: an aggregate over the entities the filter selects.
        case value(PrimitiveType, Aggregate)
    }

    public let name: String
    /// `GET` or `POST` (`m:HttpMethod`); other methods are refused with 405.
    public let httpMethod: String
    public let parameters: [Parameter]
    public let result: Result
    /// The set queried: the `EntitySet` of an entity-returning operation, `store:From` of an
    /// aggregate.
    public let entitySet: EntitySet
    /// `$filter` text over `entitySet`'s type in which `@name` stands for a parameter's value;
    /// nil selects every entity.
    public let filter: String?
    /// `$orderby` text, the order when the request gives none.
    public let orderBy: String?

    init(name: String, httpMethod: String, parameters: [Parameter], result: Result, entitySet: EntitySet,
         filter: String?, orderBy: String?) {
        self.name = name
        self.httpMethod = httpMethod
        self.parameters = parameters
        self.result = result
        self.entitySet = entitySet
        self.filter = filter
        self.orderBy = orderBy
    }

    public func parameter(named name: String) -> Parameter? { parameters.first { $0.name == name } }

    public var description: String { name }
}
