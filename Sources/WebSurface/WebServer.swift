import Atomics
import Inputs
import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import Realtime
import NIOPosix
import ServiceLifecycle

/// `run --web`: serves the live page and one WebSocket per page (Hummingbird), on the session's
/// live picture. The page gets a snapshot on connect, then deltas, meter frames and events
/// (`LiveView`), each page through its own bounded queue (`PageConnection`); its commands go to
/// the engine through `PageInput`. Who may connect: `WebAccess`.
public final class WebServer: Sendable {
    /// The largest message a page may send; larger ones are counted and close the connection.
    public static let maximumMessageBytes = 4096
    /// The largest WebSocket frame (and fragmented message) read at all.
    static let largestFrame = 1 << 20
    /// Messages a page may send a second (over a burst of `rateBurst`); faster closes it.
    public static let messagesPerSecond = 100.0
    public static let rateBurst = 200.0
    /// Pages open at once.
    public static let maximumPages = 64

    public let address: WebAddress
    /// The token pages need (nil on loopback unless given).
    public let token: String?
    public let counters = WebCounters()
    private let view: LiveView
    private let access: WebAccess
    private let files: [String: (type: String, body: String)]
    private let pages = LockedBox<[Int: PageConnection]>([:])
    private let nextPage = ManagedAtomic<Int>(0)
    private let port = ManagedAtomic<Int>(0)
    private let running = LockedBox<Task<Void, Never>?>(nil)
    private let started = DispatchSemaphore(value: 0)
    private let failure = LockedBox<String?>(nil)

    /// `token`: the one pages must give (`--web-token`); nil makes one when bound beyond loopback.
    public init(view: LiveView, address: WebAddress, token: String?) throws {
        self.view = view
        self.address = address
        let token = token ?? (address.isLoopback ? nil : WebAccess.makeToken())
        self.token = token
        access = WebAccess(token: token, loopback: address.isLoopback)
        // The page's files are compiled into the binary (an installed pulsejack carries no bundle).
        self.files = ["index.html": ("text/html; charset=utf-8", String(decoding: PackageResources.index_html, as: UTF8.self)),
                      "page.js": ("text/javascript; charset=utf-8", String(decoding: PackageResources.page_js, as: UTF8.self)),
                      "page.css": ("text/css; charset=utf-8", String(decoding: PackageResources.page_css, as: UTF8.self))]
        let pages = pages, counters = counters
        view.setSink { output in
            let open = pages.withLockedValue { Array($0.values) }
            switch output {
            case .event(let message):
                for page in open { page.offer(message) }
            case .frame(let meter, let delta):
                for page in open {
                    if let delta { page.offer(delta) }
                    page.offer(meter: meter)
                }
            }
        }
        // The page's commands, counted as OSC counts its messages.
        let page = view.page
        view.setExtraStatus {
            (counters.status + page.counters.status.map { ("page_" + $0, $1) }).map { ($0, StatusValue.int($1)) }
        }
    }

    /// The page's address, with the token when one is needed.
    public var url: String {
        let host = address.host == "0.0.0.0" || address.host == "::" ? WebServer.hostName() : address.host
        let shown = host.contains(":") ? "[\(host)]" : host
        return "http://\(shown):\(port.load(ordering: .relaxed))/" + (token.map { "?token=\($0)" } ?? "")
    }

    /// The port it listens on (the chosen one when asked for 0).
    public var boundPort: Int { port.load(ordering: .relaxed) }

    /// Starts listening; throws when the address cannot be bound.
    public func start() throws {
        // The commands' decoding instantiates generic metadata on first use: here, once, rather
        // than by several connection tasks at the same moment.
        _ = PageCommand(json: #"{"type":"control","address":"/x","args":[1,"a",true]}"#)
        _ = PageCommand(json: #"{"type":"ping","t":1}"#)
        _ = WebThreads.prepared
        var logger = Logger(label: "pulsejack-web")
        logger.logLevel = .critical
        let router = routes()
        // Frames up to 1 MiB reach `read`, which refuses (and counts) any command over
        // `maximumMessageBytes`; the library resets a larger frame on its own.
        let configuration = WebSocketServerConfiguration(maxFrameSize: Self.largestFrame, autoPing: .enabled(timePeriod: .seconds(20)),
                                                         closeTimeout: .seconds(2), validateUTF8: true)
        let webSocketResponder = router.buildResponder()
        let server = HTTPServerBuilder { [self] responder in
            GatedUpgradeChannel(inner: HTTP1WebSocketUpgradeChannel(responder: responder, webSocketResponder: webSocketResponder,
                                                                    configuration: .init(ws: configuration))) { [self] target, fields in
                gate(target: target, fields: fields)
            }
        }
        // Hummingbird's `Application` would also run its date cache: a timer waking a thread every
        // second for the `Date` header nobody here needs. The same server, without it.
        let responder = router.buildResponder()
        let service = try server.buildServer(
            configuration: ServerConfiguration(address: .hostname(address.host, port: address.port), serverName: "pulsejack"),
            eventLoopGroup: MultiThreadedEventLoopGroup.singleton, logger: logger,
            responder: { [logger] request, writer, channel in
                let context = BasicWebSocketRequestContext(source: .init(channel: channel, logger: logger))
                var response: Response
                do {
                    response = try await responder.respond(to: request, context: context)
                } catch {
                    response = Response(status: .internalServerError)
                }
                response.headers[.server] = "pulsejack"
                try await writer.write(response: response.head, body: response.body)
            },
            onServerRunning: { [port, started] channel in
                port.store(channel.localAddress?.port ?? 0, ordering: .relaxed)
                started.signal()
            })
        let services = ServiceGroup(configuration: .init(services: [service], logger: logger))
        let task = Task { [failure, started] in
            do { try await services.run() } catch {
                failure.withLockedValue { $0 = "\(error)" }
                started.signal()
            }
        }
        running.withLockedValue { $0 = task }
        guard started.wait(timeout: .now() + 10) == .success, boundPort != 0 else {
            task.cancel()
            let why = failure.withLockedValue { $0 } ?? "it did not start within 10 s"
            throw WebServerError("--web \(address): cannot serve the page there: \(why)")
        }
    }

    /// A connection's first request before the WebSocket library sees it: nil to let it in, or
    /// the status and text it is refused with.
    private func gate(target: String, fields: [(String, String)]) -> (Int, String)? {
        do {
            if let refusal = access.check(target: target, fields: fields) { throw refuse(refusal) }
            try admitPage()
            return nil
        } catch let error as HTTPError {
            return (Int(error.status.code), error.body ?? "\(error.status)")
        } catch {
            return (403, "\(error)")
        }
    }

    /// The page, its script and style, and its WebSocket.
    private func routes() -> Router<BasicWebSocketRequestContext> {
        let router = Router(context: BasicWebSocketRequestContext.self)
        router.get("/") { [self] request, _ in try serve("index.html", request: request) }
        router.get("/page.js") { [self] request, _ in try serve("page.js", request: request, needsToken: false) }
        router.get("/page.css") { [self] request, _ in try serve("page.css", request: request, needsToken: false) }
        router.ws("/ws", shouldUpgrade: { [self] request, _ in
            try admit(request)
            return .upgrade([:])
        }, onUpgrade: { [self] inbound, outbound, _ in
            await converse(inbound: inbound, outbound: outbound)
        })
        return router
    }

    /// Closes every page and stops listening.
    public func stop() {
        guard let task = running.withLockedValue({ running in defer { running = nil }; return running }) else { return }
        for page in pages.withLockedValue({ Array($0.values) }) { page.close() }
        task.cancel()
        let done = DispatchSemaphore(value: 0)
        Task {
            _ = await task.value
            done.signal()
        }
        _ = done.wait(timeout: .now() + 5)
    }

    private func serve(_ name: String, request: Request, needsToken: Bool = true) throws -> Response {
        if needsToken, let refusal = access.check(request, webSocket: false) { throw refuse(refusal) }
        let file = files[name]!
        var headers: HTTPFields = [.contentType: file.type, .cacheControl: "no-store"]
        headers[.xContentTypeOptions] = "nosniff"
        // Scripts, styles and the socket from here only; no forms, frames or plugins anywhere.
        headers[.contentSecurityPolicy] =
            "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
            + "form-action 'none'; frame-ancestors 'none'; base-uri 'none'"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: file.body)))
    }

    private func admit(_ request: Request) throws {
        if let refusal = access.check(request, webSocket: true) { throw refuse(refusal) }
        try admitPage()
    }

    private func admitPage() throws {
        guard counters.value(.pagesOpen) < Self.maximumPages else {
            counters.add(.tooManyPages)
            throw HTTPError(.serviceUnavailable, message: "more than \(Self.maximumPages) pages are open")
        }
    }

    private func refuse(_ refusal: WebAccess.Refusal) -> HTTPError {
        switch refusal {
        case .unauthorized:
            counters.add(.unauthorized)
            return HTTPError(.unauthorized, message: "this page needs the token pulsejack printed at start (?token=…)")
        case .foreignOrigin(let origin):
            counters.add(.foreignOrigin)
            return HTTPError(.forbidden, message: "a WebSocket from \(origin) is not this page's")
        case .foreignHost(let host):
            counters.add(.foreignOrigin)
            return HTTPError(.forbidden, message: "\(host) does not name this machine")
        }
    }

    /// One page's connection: a snapshot, then what the view publishes; its commands to the engine.
    private func converse(inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter) async {
        let view = view, counters = counters
        let connection = PageConnection(counters: counters)
        let number = nextPage.wrappingIncrementThenLoad(ordering: .relaxed)
        pages.withLockedValue { pages in
            connection.offer(view.snapshot())
            pages[number] = connection
        }
        counters.add(.pagesOpen)
        counters.add(.pagesTotal)
        view.pageOpened()
        defer {
            _ = pages.withLockedValue { $0.removeValue(forKey: number) }
            counters.subtract(.pagesOpen)
            view.pageClosed()
        }
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                do {
                    for await _ in connection.doorbell {
                        let batch = connection.take()
                        if batch.snapshot { try await outbound.write(.text(view.snapshot())) }
                        for message in batch.messages { try await outbound.write(.text(message)) }
                        if let meter = batch.meter { try await outbound.write(.text(meter)) }
                        counters.add(.messagesSent, batch.messages.count + (batch.meter == nil ? 0 : 1))
                    }
                } catch {}
            }
            switch await read(inbound, replyingThrough: connection) {
            case nil: break
            case .tooFast(let reason): try? await outbound.close(.policyViolation, reason: reason)
            case .notCommand(let reason): try? await outbound.close(.unacceptableData, reason: reason)
            case .tooLarge(let reason): try? await outbound.close(.messageTooLarge, reason: reason)
            }
            connection.close()
            group.cancelAll()
        }
    }

    /// A rule a page broke, and the reason its connection is closed with.
    private enum Breach {
        case tooFast(String), notCommand(String), tooLarge(String)
    }

    /// Reads the page's messages until it leaves (nil) or breaks a rule.
    private func read(_ inbound: WebSocketInboundStream, replyingThrough connection: PageConnection) async -> Breach? {
        var allowance = Self.rateBurst
        var last = MonotonicClock.seconds
        do {
            for try await message in inbound.messages(maxSize: Self.largestFrame) {
                let now = MonotonicClock.seconds
                allowance = min(Self.rateBurst, allowance + (now - last) * Self.messagesPerSecond)
                last = now
                allowance -= 1
                guard allowance >= 0 else {
                    counters.add(.rateLimited)
                    return .tooFast("more than \(Int(Self.messagesPerSecond)) messages a second")
                }
                guard case .text(let text) = message else {
                    counters.add(.malformed)
                    return .notCommand("commands are JSON text")
                }
                guard text.utf8.count <= Self.maximumMessageBytes else {
                    counters.add(.oversized)
                    return .tooLarge("a command is at most \(Self.maximumMessageBytes) bytes")
                }
                switch PageCommand(json: text) {
                case .control(let command):
                    if let why = view.page.handle(command) {
                        connection.offer(JSONText.object([("type", "\"error\""), ("message", JSONText.string(why))]))
                    }
                case .ping(let time):
                    var now = timespec()
                    clock_gettime(CLOCK_REALTIME, &now)
                    let server = Double(now.tv_sec) * 1000 + Double(now.tv_nsec) / 1_000_000
                    connection.offer(JSONText.object([("type", "\"pong\""), ("t", JSONText.number(time)),
                                                      ("server", JSONText.number(server))]))
                case nil:
                    counters.add(.malformed)
                    return .notCommand("not a command: {\"type\":\"control\",\"address\":…,\"args\":[…]}")
                }
            }
        } catch {
            // A protocol error, or a message fragmented past `largestFrame` (the library's
            // `messageTooLarge`): the library closes it.
            counters.add("\(error)".contains("messageTooLarge") ? .oversized : .malformed)
        }
        return nil
    }

    static func hostName() -> String {
        var name = [CChar](repeating: 0, count: 256)
        guard gethostname(&name, name.count) == 0 else { return "localhost" }
        return String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

public struct WebServerError: Error, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}
