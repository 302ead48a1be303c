// swift-tools-version:6.0
// CarDealer: an OData V2 gateway over SQLite, served by libmicrohttpd, and its clients.
//
// Layers, with dependencies pointing one way (top depends on bottom):
//   executables   DealerGateway (serves the OData service on the HTTP server; picks the engine)
//   OData service ODataHTTP (the request pipeline and $batch)
//   serializers   ODataSerialization
//   engines       SQLiteStore (the SQLite engine, the only module that imports CSQLite),
//                 PostgresStore (the PostgreSQL engine, the only module that imports CLibPQ)
//   storage       ODataStore (the engine-neutral storage interface, read plans, SQL builders, dialect protocol)
//   URI/query     ODataURI
//   model         EDM  <- CSDL (the EDMX reader/writer, shared with the client code generator)
//   C shims       CSQLite, CMicroHTTPD, CLibPQ
// An engine is a sibling of the serializers above ODataStore: ODataSerialization and ODataHTTP
// reach storage only through ODataStore's interface and never import an engine; DealerGateway
// (and the tests) do.
// HTTPCore, the HTTP/1.1 server on libmicrohttpd, is a layer of its own between CMicroHTTPD and
// ODataHTTP: it knows nothing of OData and depends on CMicroHTTPD alone; ODataHTTP answers its
// requests, and only ODataHTTP and DealerGateway import it.
// Clients/ holds RestConnection, dealer and dealer-codegen; they never import gateway modules.
//
// Dependencies, and why each is here:
// - swift-argument-parser: the command lines of dealer-gateway, dealer and dealer-codegen.
// - swift-log: structured logging in the gateway (requests, errors with their detail).
// - swift-crypto: API keys' random bytes and salted SHA-256 hashes, compared in constant time.
// - libpq (system library, CLibPQ), PostgreSQL's own client library, rather than a NIO driver:
//   the gateway's workers are plain threads, each with its own connection used synchronously,
//   so an event loop would only add hops; libpq also reads the password from the URI,
//   PGPASSWORD or ~/.pgpass exactly as psql does.
// - libcurl (system library, CCurl; Linux only): URLSession on Linux cannot take a custom HTTPS
//   trust (it never asks its delegate about server trust), so RestConnection runs the requests
//   of a connection with a CA file or a pinned certificate on libcurl itself; swift-crypto
//   hashes the pinned certificate's public key for it.
import PackageDescription

let package = Package(
    name: "CarDealer",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9)],
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
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
    ],
    targets: [
        .systemLibrary(name: "CSQLite", path: "Sources/CSQLite", pkgConfig: "sqlite3",
                       providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CMicroHTTPD", path: "Sources/CMicroHTTPD", pkgConfig: "libmicrohttpd",
                       providers: [.apt(["libmicrohttpd-dev"])]),
        .systemLibrary(name: "CLibPQ", path: "Sources/CLibPQ", pkgConfig: "libpq",
                       providers: [.apt(["libpq-dev"])]),
        .target(name: "CSDL"),
        .target(name: "EDM", dependencies: ["CSDL"]),
        .target(name: "ODataURI", dependencies: ["EDM"]),
        .target(name: "ODataStore", dependencies: ["EDM", "ODataURI"], exclude: ["README.md"]),
        .target(name: "SQLiteStore", dependencies: ["EDM", "ODataURI", "ODataStore", "CSQLite"]),
        // The PostgreSQL engine under the storage interface; the only importer of CLibPQ.
        .target(name: "PostgresStore", dependencies: ["EDM", "ODataURI", "ODataStore", "CLibPQ"]),
        .target(name: "ODataSerialization", dependencies: ["EDM", "ODataURI", "ODataStore", "CSDL"]),
        .target(name: "HTTPCore", dependencies: ["CMicroHTTPD"]),
        .target(name: "ODataHTTP", dependencies: [
            "CSDL", "EDM", "ODataURI", "ODataStore", "ODataSerialization", "HTTPCore",
            .product(name: "Logging", package: "swift-log"),
            .product(name: "Crypto", package: "swift-crypto"),
        ]),
        .executableTarget(name: "DealerGateway", dependencies: [
            "HTTPCore", "ODataHTTP", "ODataStore", "SQLiteStore", "PostgresStore", "EDM",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "Logging", package: "swift-log"),
        ]),

        // Clients: they speak OData over HTTP and share only the CSDL reader with the gateway.
        .systemLibrary(name: "CCurl", path: "Clients/CCurl", pkgConfig: "libcurl",
                       providers: [.apt(["libcurl4-openssl-dev"])]),
        .target(name: "RestConnection", dependencies: [
            .target(name: "CCurl", condition: .when(platforms: [.linux])),
            .product(name: "Crypto", package: "swift-crypto", condition: .when(platforms: [.linux])),
        ], path: "Clients/RestConnection"),
        .executableTarget(name: "Dealer", dependencies: [
            "RestConnection",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ], path: "Clients/Dealer"),
        .executableTarget(name: "DealerCodegen", dependencies: [
            "CSDL", "RestConnection",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ], path: "Clients/DealerCodegen"),

        .testTarget(name: "ClientTests", dependencies: ["RestConnection", "CSDL", "Dealer", "DealerCodegen", "DealerGateway"]),
        .testTarget(name: "GatewayTests", dependencies: [
            "HTTPCore", "ODataHTTP", "ODataStore", "SQLiteStore", "ODataSerialization", "ODataURI", "EDM", "CSDL", "CSQLite",
            "PostgresStore",
            .product(name: "Logging", package: "swift-log"),
            "DealerGateway",
        ], exclude: ["Fixtures"]),
    ]
)

// Fuzz targets (Fuzz/, run by scripts/fuzz), declared only when CARDEALER_FUZZ=1: a fuzz target
// has no main of its own and links only with `-sanitize=fuzzer`, which the normal build lacks.
if Context.environment["CARDEALER_FUZZ"] == "1" {
    let fuzzTargets: [(name: String, dependencies: [Target.Dependency])] = [
        ("FuzzURI", ["ODataURI", "EDM"]),
        ("FuzzFilter", ["ODataURI", "EDM"]),
        ("FuzzJSON", ["ODataSerialization", "EDM"]),
        ("FuzzBatch", ["ODataHTTP"]),
        ("FuzzEDMX", ["CSDL", "EDM"]),
        ("FuzzSelfCheck", []),
    ]
    for target in fuzzTargets {
        package.targets.append(.executableTarget(name: target.name, dependencies: target.dependencies,
                                                 path: "Fuzz/\(target.name)"))
    }
}
