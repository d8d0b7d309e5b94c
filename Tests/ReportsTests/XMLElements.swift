import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// Every element of an XML text with its attributes, read by Foundation's parser: the reports'
/// independent reader (nil when the text is not well-formed XML).
final class XMLElements: NSObject, XMLParserDelegate {
    private(set) var found: [(name: String, attributes: [String: String])] = []

    static func read(_ text: String) -> [(name: String, attributes: [String: String])]? {
        let parser = XMLParser(data: Data(text.utf8))
        let elements = XMLElements()
        parser.delegate = elements
        return parser.parse() ? elements.found : nil
    }

    func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                attributes: [String: String] = [:]) {
        found.append((name, attributes))
    }
}
