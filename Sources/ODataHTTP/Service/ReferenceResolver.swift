import EDM
import ODataSerialization
import ODataStore
import ODataURI

/// Finds the entity a URI in a request body names: a binding's `__metadata.uri` or the `uri`
/// of a `$links` body. The URI goes through the same parser as request URIs; `$id` references
/// are looked up among the change set's Content-IDs.
extension ODataService {
    func resolve(_ reference: EntityReference, along navigation: NavigationProperty, in context: WriteContext) throws -> EntityRecord {
        let association = navigation.association
        var segments = reference.segments
        if let id = reference.contentID {
            guard let location = context.contentIDs?.location(for: id) else {
                throw PayloadError("The URI '\(reference.uri)' for '\(navigation.name)' refers to Content-ID '\(id)', which no earlier operation of this change set created.",
                                   propertyName: navigation.name)
            }
            segments = try EntityReference(uri: location, serviceRoot: context.request.serviceRoot).segments + segments
        }
        let info: UriInfo
        do {
            info = try uriParser.parse(path: Substring(segments.joined(separator: "/")), query: "")
        } catch {
            throw PayloadError("The URI '\(reference.uri)' for '\(navigation.name)' does not name an entity: \(error.message).",
                               propertyName: navigation.name)
        }
        guard case .entity(let path) = info.resource else {
            throw PayloadError("The URI '\(reference.uri)' for '\(navigation.name)' does not address a single entity.", propertyName: navigation.name)
        }
        guard path.targetType === navigation.target else {
            throw PayloadError("The URI '\(reference.uri)' for '\(navigation.name)' addresses a \(path.targetType.name), but '\(navigation.name)' relates to a \(navigation.target.name).",
                               propertyName: navigation.name)
        }
        guard let record = try context.reader.single(path) else {
            throw WriteError.badRequest("The relationship \(association.name) cannot refer to '\(reference.uri)' ('\(navigation.name)'): no such \(navigation.target.name) exists.")
        }
        return record
    }
}
