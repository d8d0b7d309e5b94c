import Inputs
import Foundation
import Realtime

/// Debian's headless chromium driven through Debian's chromedriver (the W3C WebDriver protocol:
/// JSON over HTTP), for tests and benchmarks. Nothing is downloaded.
public final class WebDriver {
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
        public init(description: String) { self.description = description }
    }

    private let driver: Process
    private let base: String
    private let session: String

    public static var available: Bool {
        FileManager.default.isExecutableFile(atPath: "/usr/bin/chromedriver") && FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium")
    }

    /// Starts chromedriver on a port it picks (it prints it) and a headless chromium session (a
    /// window of `width`×`height`).
    public init(width: Int = 1280, height: Int = 1400) throws {
        driver = Process()
        Subprocess.keepForTheSuite(driver)
        driver.executableURL = URL(fileURLWithPath: "/usr/bin/chromedriver")
        driver.arguments = ["--port=0"]
        let pipe = Pipe(), said = LockedBox("")
        pipe.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            said.withLockedValue { $0 += String(decoding: data, as: UTF8.self) }
        }
        driver.standardOutput = pipe
        driver.standardError = pipe
        try driver.run()
        var port: Int?
        for _ in 0..<200 where port == nil {
            // "ChromeDriver was started successfully on port 36959."
            port = said.withLockedValue { $0 }.split(separator: "\n").first { $0.contains("started successfully on port") }
                .flatMap { Int($0.split(separator: " ").last?.trimmingCharacters(in: CharacterSet(charactersIn: ".\r")) ?? "") }
            if port == nil { usleep(50_000) }
        }
        guard let port else {
            driver.terminate()
            throw Failure(description: "chromedriver did not start: \(said.withLockedValue { $0 })")
        }
        base = "http://127.0.0.1:\(port)"
        let capabilities: [String: Any] = ["capabilities": ["alwaysMatch": [
            "browserName": "chrome",
            "goog:chromeOptions": ["binary": "/usr/bin/chromium",
                                   "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                                            "--window-size=\(width),\(height)", "--hide-scrollbars"]],
        ]]]
        let answer = try Self.call("POST", base + "/session", capabilities)
        guard let value = answer["value"] as? [String: Any], let id = value["sessionId"] as? String else {
            driver.terminate()
            throw Failure(description: "no chromium session: \(answer)")
        }
        session = base + "/session/" + id
    }

    deinit { quit() }

    private var quitted = false
    public func quit() {
        guard !quitted else { return }
        quitted = true
        _ = try? Self.call("DELETE", session, nil)
        driver.terminate()
        driver.waitUntilExit()
    }

    public func open(_ url: String) throws { _ = try command("POST", "/url", ["url": url]) }

    /// Runs `script` (a function body; `arguments[0]`… are `arguments`) in the page; its result.
    @discardableResult
    public func execute(_ script: String, _ arguments: [Any] = []) throws -> Any? {
        try command("POST", "/execute/sync", ["script": script, "args": arguments])
    }

    /// Waits up to `seconds` for `script` to return true.
    public func wait(seconds: Double = 10, until script: String) throws -> Bool {
        let end = Date().addingTimeInterval(seconds)
        while Date() < end {
            if (try execute(script)) as? Bool == true { return true }
            usleep(50_000)
        }
        return false
    }

    /// The window as PNG.
    public func screenshot() throws -> Data {
        guard let encoded = try command("GET", "/screenshot", nil) as? String, let data = Data(base64Encoded: encoded) else {
            throw Failure(description: "no screenshot")
        }
        return data
    }

    /// A new window (tab), made current; its handle.
    public func newWindow() throws -> String {
        guard let value = try command("POST", "/window/new", ["type": "tab"]) as? [String: Any], let handle = value["handle"] as? String else {
            throw Failure(description: "no new window")
        }
        try switchTo(handle)
        return handle
    }

    public var window: String { get throws { (try command("GET", "/window", nil) as? String) ?? "" } }

    public func switchTo(_ handle: String) throws { _ = try command("POST", "/window", ["handle": handle]) }

    private func command(_ method: String, _ path: String, _ body: [String: Any]?) throws -> Any? {
        let answer = try Self.call(method, session + path, body)
        if let value = answer["value"] as? [String: Any], let error = value["error"] as? String {
            throw Failure(description: "\(path): \(error): \(value["message"] ?? "")")
        }
        return answer["value"]
    }

    private static func call(_ method: String, _ url: String, _ body: [String: Any]?) throws -> [String: Any] {
        let parsed = URLComponents(string: url)!
        let response = try PlainHTTP.request(method, port: parsed.port ?? 80, path: parsed.path,
                                             body: try body.map { try JSONSerialization.data(withJSONObject: $0) })
        return (try JSONSerialization.jsonObject(with: response.body) as? [String: Any]) ?? [:]
    }
}
