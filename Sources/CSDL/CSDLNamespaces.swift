/// XML namespaces of EDMX and CSDL, as MS-ODATA and [MC-CSDL] name them.
public enum CSDLNamespaces {
    public static let edmx = "http://schemas.microsoft.com/ado/2007/06/edmx"
    public static let dataServicesMetadata = "http://schemas.microsoft.com/ado/2007/08/dataservices/metadata"
    public static let dataServices = "http://schemas.microsoft.com/ado/2007/08/dataservices"
    /// CSDL 1.0, 1.1 and 2.0 schema namespaces; any of them is read.
    public static let edm = [
        "http://schemas.microsoft.com/ado/2006/04/edm",
        "http://schemas.microsoft.com/ado/2007/05/edm",
        "http://schemas.microsoft.com/ado/2008/09/edm",
        "http://schemas.microsoft.com/ado/2009/11/edm",
    ]
    /// The namespace written for CSDL 2.0, which DataServiceVersion 2.0 metadata uses.
    public static let edm2 = "http://schemas.microsoft.com/ado/2008/09/edm"
    /// Entity Framework's annotation vocabulary (StoreGeneratedPattern).
    public static let annotation = "http://schemas.microsoft.com/ado/2009/02/edm/annotation"
}
