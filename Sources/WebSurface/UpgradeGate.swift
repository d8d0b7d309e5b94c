import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore

/// Answers a refused WebSocket upgrade with its own status (401 without the token, 403 from
/// another site), before the WebSocket library sees it: the library answers every refused
/// upgrade 400. A request with two Host fields gets 400, and `/ws` without an upgrade 426. A handler first in each connection's pipeline reads the first request's head;
/// an upgrade `refuse` turns down gets the status and the connection closes; anything else
/// passes on untouched and the handler leaves. (A later request on a kept-alive connection is
/// checked by the route itself, which refuses with the library's 400.)
struct GatedUpgradeChannel: ServerChildChannel {
    typealias Value = HTTP1WebSocketUpgradeChannel.Value
    let inner: HTTP1WebSocketUpgradeChannel
    /// A head (request line and fields) → the response to refuse it with, or nil to let it pass.
    let refuse: @Sendable (_ target: String, _ fields: [(String, String)]) -> (status: Int, reason: String)?

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.addHandler(UpgradeGate(refuse: refuse))
        }.flatMap { inner.setup(channel: channel, logger: logger) }
    }

    func handle(value: Value, logger: Logger) async { await inner.handle(value: value, logger: logger) }
}

final class UpgradeGate: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    /// A head longer than this passes on, for the HTTP decoder to refuse.
    static let maximumHead = 16_384

    private let refuse: @Sendable (String, [(String, String)]) -> (status: Int, reason: String)?
    private var pending: ByteBuffer?

    init(refuse: @escaping @Sendable (String, [(String, String)]) -> (status: Int, reason: String)?) { self.refuse = refuse }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var buffer = unwrapInboundIn(data)
        if var held = pending {
            held.writeBuffer(&buffer)
            buffer = held
        }
        let bytes = buffer.readableBytesView
        guard let end = bytes.firstRange(of: [13, 10, 13, 10]) else {
            if bytes.count > Self.maximumHead { return pass(buffer, context) }
            pending = buffer
            return
        }
        let head = String(decoding: bytes[bytes.startIndex..<end.lowerBound], as: UTF8.self).split(separator: "\r\n")
        let target = head.first.map { $0.split(separator: " ").dropFirst().first.map(String.init) ?? "" } ?? ""
        let fields = head.dropFirst().compactMap { line -> (String, String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (line[..<colon].lowercased(), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        let upgrade = fields.contains { $0.0 == "upgrade" && $0.1.lowercased() == "websocket" }
        // Two Host fields: which one the checks read would be the attacker's choice.
        if fields.filter({ $0.0 == "host" }).count > 1 { return answer(400, "a request names one Host", context) }
        if !upgrade && target.split(separator: "?").first == "/ws" {
            return answer(426, "/ws is the page's WebSocket: it takes an upgrade", context)
        }
        if upgrade, let (status, reason) = refuse(target, fields) { return answer(status, reason, context) }
        pass(buffer, context)
    }

    /// Answers `status` with `reason` and closes the connection.
    private func answer(_ status: Int, _ reason: String, _ context: ChannelHandlerContext) {
        let body = reason + "\n"
        let phrase = [400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 426: "Upgrade Required"][status] ?? "Service Unavailable"
        var response = context.channel.allocator.buffer(capacity: 256)
        response.writeString("HTTP/1.1 \(status) \(phrase)\r\n" + (status == 426 ? "Upgrade: websocket\r\n" : "")
            + "Content-Type: text/plain; charset=utf-8\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n" + body)
        pending = nil
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(response)).whenComplete { _ in channel.close(promise: nil) }
    }

    typealias OutboundOut = ByteBuffer

    private func pass(_ buffer: ByteBuffer, _ context: ChannelHandlerContext) {
        pending = nil
        context.fireChannelRead(wrapInboundOut(buffer))
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }
}
