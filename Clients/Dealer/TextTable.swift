/// Columns of text, padded so they line up; numbers are aligned right. Cells are cleaned of
/// control characters and measured in display columns, so wide (CJK) text lines up too.
struct TextTable {
    enum Alignment {
        case left, right
    }

    struct Column {
        var title: String
        var alignment: Alignment
    }

    /// No column is cut narrower than this, so every column keeps a readable start.
    static let narrowestColumn = 4

    var columns: [Column]
    var rows: [[String]] = []

    init(_ columns: [(String, Alignment)]) {
        self.columns = columns.map { Column(title: $0.0, alignment: $0.1) }
    }

    mutating func add(_ row: [String]) {
        rows.append(row.map(TerminalText.clean))
    }

    /// The table as lines, header first, columns two spaces apart, no trailing spaces. Given a
    /// width, the widest columns are narrowed until the table fits, their long cells cut with `…`.
    func render(indent: String = "", width: Int? = nil) -> [String] {
        var widths = columns.map { TerminalText.width($0.title) }
        for row in rows {
            for (i, cell) in row.enumerated() where i < widths.count {
                widths[i] = max(widths[i], TerminalText.width(cell))
            }
        }
        if let width {
            let gaps = 2 * max(columns.count - 1, 0) + TerminalText.width(indent)
            while widths.reduce(0, +) + gaps > width,
                  let widest = widths.indices.max(by: { widths[$0] < widths[$1] }),
                  widths[widest] > TextTable.narrowestColumn {
                widths[widest] -= 1
            }
        }
        func line(_ cells: [String]) -> String {
            var parts: [String] = []
            for (i, column) in columns.enumerated() {
                let cell = TerminalText.truncate(i < cells.count ? cells[i] : "", toWidth: widths[i])
                let padding = String(repeating: " ", count: max(0, widths[i] - TerminalText.width(cell)))
                parts.append(column.alignment == .right ? padding + cell : cell + padding)
            }
            var text = indent + parts.joined(separator: "  ")
            while text.last == " " { text.removeLast() }
            return text
        }
        return [line(columns.map(\.title))] + rows.map(line)
    }
}
