// swift-tools-version:6.0
// CarDealer: an OData V2 gateway over SQLite, served by libmicrohttpd, and its clients.
//
// Layers, with dependencies pointing one way (top depends on bottom):
//   executables   DealerGateway
//   HTTP          ODataHTTP
//   serializers   ODataSerialization
//   storage       ODataStore
//   URI/query     ODataURI
//   model         EDM  <- CSDL (the EDMX reader/writer, shared with the client code generator)
//   C shims       CSQLite, CMicroHTTPD
// Clients/ holds RestConnection, dealer and dealer-codegen; they never import gateway modules.
//
// Dependencies, and why each is here:
// - swift-argument-parser: the command lines of dealer-gateway, dealer and dealer-codegen.
// - swift-log: structured logging in the gateway (requests, errors with their detail).
import PackageDescription

let package = Package(
    name: "CarDealer",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "dealer-gateway", targets: ["DealerGateway"]),
        .executable(name: "dealer", targets: ["Dealer"]),
        .executable(name: "dealer-codegen", targets: ["DealerCodegen"]),
        .library(name: "RestConnection", targets: ["RestConnection"]),
        .library(name: "CSDL", targets: ["CSDL"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
    ],
    targets: [
        .systemLibrary(name: "CSQLite", path: "Sources/CSQLite", pkgConfig: "sqlite3",
                       providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CMicroHTTPD", path: "Sources/CMicroHTTPD", pkgConfig: "libmicrohttpd",
                       providers: [.apt(["libmicrohttpd-dev"])]),
        .target(name: "CSDL"),
        .target(name: "EDM", dependencies: ["CSDL"]),
        .target(name: "ODataURI", dependencies: ["EDM"]),
        .target(name: "ODataStore", dependencies: ["EDM", "ODataURI", "CSQLite"], exclude: ["README.md"]),
        .target(name: "ODataSerialization", dependencies: ["EDM", "ODataURI", "ODataStore", "CSDL"]),
        .target(name: "ODataHTTP", dependencies: [
            "EDM", "ODataURI", "ODataStore", "ODataSerialization", "CMicroHTTPD",
            .product(name: "Logging", package: "swift-log"),
        ]),
        .executableTarget(name: "DealerGateway", dependencies: [
            "ODataHTTP", "ODataStore", "EDM",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "Logging", package: "swift-log"),
        ]),

        // Clients: they speak OData over HTTP and share only the CSDL reader with the gateway.
        .target(name: "RestConnection", path: "Clients/RestConnection"),
        .executableTarget(name: "Dealer", dependencies: [
            "RestConnection",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ], path: "Clients/Dealer"),
        .executableTarget(name: "DealerCodegen", dependencies: [
            "CSDL",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ], path: "Clients/DealerCodegen"),

        .testTarget(name: "ClientTests", dependencies: ["RestConnection", "CSDL", "Dealer", "DealerCodegen", "DealerGateway"]),
        .testTarget(name: "GatewayTests", dependencies: [
            "ODataHTTP", "ODataStore", "ODataSerialization", "ODataURI", "EDM", "CSDL", "CSQLite",
            .product(name: "Logging", package: "swift-log"),
            "DealerGateway",
        ], exclude: ["Fixtures"]),
    ]
)
