/// A `FunctionImport` of an entity container (a service operation, MS-ODATA 2.2.3.5 and
/// [MC-CSDL] 2.1.15), as written.
public struct CSDLFunctionImport: Sendable, Equatable {
    public struct Parameter: Sendable, Equatable {
        public var name: String
        public var type: String
        /// "In", "Out" or "InOut"; V2 services take "In".
        public var mode: String?
        public var nullable: Bool?
        public var maxLength: String?
        public var precision: Int?
        public var scale: Int?

        public init(name: String, type: String) {
            self.name = name
            self.type = type
        }
    }

    public var name: String
    /// `Collection(Namespace.Type)`, `Namespace.Type` or an `Edm.*` type; nil for none.
    public var returnType: String?
    public var entitySet: String?
    /// The `m:HttpMethod` attribute: the method clients call it with.
    public var httpMethod: String?
    public var parameters: [Parameter] = []
    public var annotations: [CSDLAnnotation] = []

    public init(name: String) { self.name = name }
}
