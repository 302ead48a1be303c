/// Columns of text, padded so they line up; numbers are aligned right.
struct TextTable {
    enum Alignment {
        case left, right
    }

    struct Column {
        var title: String
        var alignment: Alignment
    }

    var columns: [Column]
    var rows: [[String]] = []

    init(_ columns: [(String, Alignment)]) {
        self.columns = columns.map { Column(title: $0.0, alignment: $0.1) }
    }

    mutating func add(_ row: [String]) {
        rows.append(row)
    }

    /// The table as lines, header first, columns two spaces apart, no trailing spaces.
    func render(indent: String = "") -> [String] {
        var widths = columns.map { $0.title.count }
        for row in rows {
            for (i, cell) in row.enumerated() where i < widths.count {
                widths[i] = max(widths[i], cell.count)
            }
        }
        func line(_ cells: [String]) -> String {
            var parts: [String] = []
            for (i, column) in columns.enumerated() {
                let cell = i < cells.count ? cells[i] : ""
                let padding = String(repeating: " ", count: widths[i] - cell.count)
                parts.append(column.alignment == .right ? padding + cell : cell + padding)
            }
            var text = indent + parts.joined(separator: "  ")
            while text.last == " " { text.removeLast() }
            return text
        }
        return [line(columns.map(\.title))] + rows.map(line)
    }
}
