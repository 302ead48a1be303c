import CSDL
import EDM

/// The service document (MS-ODATA 2.2.6.2.7 and 2.2.6.3.12): the entity sets the service exposes.
public enum ServiceDocumentSerializer {
    /// `{"d": {"EntitySets": ["Person", ...]}}`
    public static func json(for model: EntityModel) -> [UInt8] {
        var json = JSONWriter()
        json.raw("{\"d\":{\"EntitySets\":[")
        for (index, set) in model.entitySets.enumerated() {
            if index > 0 { json.raw(",") }
            json.string(set.name)
        }
        json.raw("]}}")
        return json.bytes
    }

    /// The AtomPub service document.
    public static func atom(for model: EntityModel, serviceRoot: String) -> String {
        var xml = "<?xml version=\"1.0\" encoding=\"utf-8\" standalone=\"yes\"?>\n"
        xml += "<service xml:base=\"\(CSDLWriter.escape(serviceRoot))\" xmlns:atom=\"http://www.w3.org/2005/Atom\""
        xml += " xmlns:app=\"http://www.w3.org/2007/app\" xmlns=\"http://www.w3.org/2007/app\">\n"
        xml += "  <workspace>\n    <atom:title>Default</atom:title>\n"
        for set in model.entitySets {
            xml += "    <collection href=\"\(CSDLWriter.escape(set.name))\">\n"
            xml += "      <atom:title>\(CSDLWriter.escape(set.name))</atom:title>\n    </collection>\n"
        }
        xml += "  </workspace>\n</service>\n"
        return xml
    }
}
