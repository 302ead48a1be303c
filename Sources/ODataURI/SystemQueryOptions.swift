/// The raw values of the system query options of one request. A slot per option rather than
/// a dictionary by name: the parser asks for options a dozen times per request, and an index
/// costs nothing where hashing a name cost hundreds of instructions.
struct SystemQueryOptions {
    /// Every system query option of OData V2 that the service supports.
    enum Option: Int, CaseIterable {
        case expand, select, filter, orderby, top, skip, skiptoken, inlinecount, format

        var name: String { "$" + String(describing: self) }

        init?(name: String) {
            switch name {
            case "$expand": self = .expand
            case "$select": self = .select
            case "$filter": self = .filter
            case "$orderby": self = .orderby
            case "$top": self = .top
            case "$skip": self = .skip
            case "$skiptoken": self = .skiptoken
            case "$inlinecount": self = .inlinecount
            case "$format": self = .format
            default: return nil
            }
        }
    }

    private var values = [String?](repeating: nil, count: Option.allCases.count)

    subscript(option: Option) -> String? {
        get { values[option.rawValue] }
        set { values[option.rawValue] = newValue }
    }

    /// The first of `options` that the request gives.
    func firstGiven(of options: [Option]) -> Option? {
        options.first { self[$0] != nil }
    }
}
