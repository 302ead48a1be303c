import ODataStore

/// What the last snapshot scope of a read plan (or, without one, that began with a statement) ran
/// after its first statement, learned from that scope (`PostgresConnection.readScope`). Reads of
/// one plan mostly run the same statements: its length lets the next such scope send its COMMIT
/// with its last statement, and when each later statement's parameters were all among the first
/// statement's (a single entity's expansion takes the entity's key, a count the page's filter
/// values), the next scope sends every statement in the round trip of its first. What a later
/// statement is then asked with is compared with what was sent: a result is used only for the
/// same text and parameters.
struct ScopePlan {
    /// What a plan is learned for: the read plan a scope said it reads for
    /// (`ReadScopeShape.plannedStatements`), or else the scope's first statement.
    enum Key: Hashable {
        case plan(Int)
        case firstStatement(String)
    }

    /// A statement after the first: its text and, when every parameter it was run with was one
    /// of the first statement's, that parameter's position there.
    struct LaterStatement {
        let sql: String
        let parameterSources: [Int]?
    }

    let later: [LaterStatement]

    /// The statements a scope of this plan runs, the first included.
    var length: Int { later.count + 1 }

    /// The same statements, none predicted: for a plan whose later statements were once asked
    /// with other values than predicted.
    var lengthOnly: ScopePlan {
        ScopePlan(later: later.map { LaterStatement(sql: $0.sql, parameterSources: nil) })
    }

    /// Learns a later statement from the parameters it was run with.
    static func later(_ sql: String, parameters: [SQLValue], firstParameters: [SQLValue]) -> LaterStatement {
        var sources: [Int] = []
        for parameter in parameters {
            guard let source = firstParameters.firstIndex(of: parameter) else {
                return LaterStatement(sql: sql, parameterSources: nil)
            }
            sources.append(source)
        }
        return LaterStatement(sql: sql, parameterSources: sources)
    }

    /// The later statements with their parameters taken from the first statement's, or nil when
    /// one of them took a value the first did not have (a key read from a row).
    func predicted(from firstParameters: [SQLValue]) -> [PredictedStatement]? {
        var statements: [PredictedStatement] = []
        statements.reserveCapacity(later.count)
        for statement in later {
            guard let sources = statement.parameterSources, sources.allSatisfy({ $0 < firstParameters.count }) else { return nil }
            statements.append(PredictedStatement(sql: statement.sql, parameters: sources.map { firstParameters[$0] }))
        }
        return statements
    }
}

/// A statement a scope is expected to run, with the parameters it is expected to bind.
struct PredictedStatement: Equatable {
    let sql: String
    let parameters: [SQLValue]
}

/// A later statement of a scope, sent in the round trip of its first, with its outcome: given to
/// the scope when it asks for the same text with the same parameters.
struct PrefetchedStatement {
    let statement: PredictedStatement
    let outcome: Result<PostgresResult, PostgresError>
}
