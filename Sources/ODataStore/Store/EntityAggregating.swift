import EDM
import ODataURI

/// A reader that computes an aggregate over the entities a query addresses, in the store: a
/// service operation's primitive result (`FunctionImport.Aggregate`), without reading the
/// entities out. A reader that does not conform cannot answer such operations.
public protocol EntityAggregating: AnyObject {
    /// `count` of the entities, or `sum`, `min`, `max`, `avg` of `aggregate.property` over those
    /// where it is not null (null when there are none, as SQL has it), in its stored form:
    /// an integer, a real (for Decimal sums and averages, and every average) or the column's value.
    func aggregate(_ aggregate: FunctionImport.Aggregate, of query: EntityQuery) throws -> SQLValue
}
