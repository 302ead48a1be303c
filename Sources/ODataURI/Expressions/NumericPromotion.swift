import EDM

/// The numeric promotions of MS-ODATA 2.2.3.6.1.1.3-6: which type two numeric operands meet in,
/// and which implicit widenings a function argument may take.
enum NumericPromotion {
    /// The common type of a binary operation (2.2.3.6.1.1.4). Decimal meeting Single or Double is
    /// not defined by the spec; it meets in Double, which is how the store compares Decimals anyway.
    static func common(_ a: PrimitiveType, _ b: PrimitiveType) -> PrimitiveType? {
        guard a.isNumeric, b.isNumeric else { return nil }
        if a == b { return a }
        let floating: Set<PrimitiveType> = [.single, .double]
        if a == .decimal || b == .decimal {
            return floating.contains(a) || floating.contains(b) ? .double : .decimal
        }
        for type in [PrimitiveType.double, .single, .int64, .int32, .int16] where a == type || b == type {
            return type
        }
        // Byte meets SByte: Int16 holds both ranges.
        return .int16
    }

    /// The result type of arithmetic: the common type, widened to at least Int32 as in C#.
    static func arithmetic(_ a: PrimitiveType, _ b: PrimitiveType) -> PrimitiveType? {
        common(a, b).map(widenedToInt32)
    }

    /// Unary negation's operand promotion (2.2.3.6.1.1.3): Byte, SByte and Int16 to Int32,
    /// Single to Double.
    static func negation(_ type: PrimitiveType) -> PrimitiveType? {
        guard type.isNumeric else { return nil }
        return type == .single ? .double : widenedToInt32(type)
    }

    /// True when a value of `source` may be passed where `target` is expected without a cast.
    static func isImplicit(from source: PrimitiveType, to target: PrimitiveType) -> Bool {
        if source == target { return true }
        guard let sourceRank = source.numericRank, let targetRank = target.numericRank else { return false }
        if source == .decimal || (target == .decimal && (source == .single || source == .double)) { return false }
        return targetRank > sourceRank
    }

    private static func widenedToInt32(_ type: PrimitiveType) -> PrimitiveType {
        switch type {
        case .byte, .sByte, .int16: return .int32
        default: return type
        }
    }
}
