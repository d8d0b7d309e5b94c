// swift-tools-version:6.2
import PackageDescription

/// Our Swift targets: Swift 6 language mode, and every warning an error.
let strict: [SwiftSetting] = [.treatAllWarnings(as: .error)]

/// The targets the process thread runs: in release builds without the dynamic exclusivity
/// checks, which cost a runtime call and a thread-local lookup at each access to a class's
/// stored property (a twentieth of the process thread's time at rest). Debug and
/// ThreadSanitizer builds, where every test runs, keep them.
let processPath: [SwiftSetting] = strict + [.unsafeFlags(["-enforce-exclusivity=unchecked"], .when(configuration: .release))]

/// The real-time primitives optimized in debug builds too, where every test runs: the output's
/// SIMD passes (`SampleLanes`) unoptimized are a call per lane operation, and with a dozen plugins
/// the debug engine's process thread spent 83 % of a period there and ran in xruns.
let realtimeSettings: [SwiftSetting] = processPath + [.unsafeFlags(["-O"], .when(configuration: .debug))]

/// The pose thread's pixel loops (a 256 × 256 crop a frame) optimized in debug builds too, where
/// every test runs: unoptimized, a frame took 110 ms beside LiteRT's 25, and a 10 fps video
/// dropped frames.
let poseSettings: [SwiftSetting] = strict + [.unsafeFlags(["-O"], .when(configuration: .debug))]

let package = Package(
    name: "pulsejack",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "pulsejack", targets: ["pulsejack"]),
        .executable(name: "pulsejack-bench", targets: ["pulsejack-bench"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-atomics", from: "1.3.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/jpsim/Yams", from: "5.0.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.1"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
    ],
    targets: [
        // Thin C shims: only what Swift cannot call directly.
        .target(name: "CJack", linkerSettings: [.linkedLibrary("jack")]),
        // The process-thread marker: a thread-local, which Swift cannot declare.
        .target(name: "CProcessThread"),
        .systemLibrary(name: "CSndfile", pkgConfig: "sndfile"),
        .systemLibrary(name: "CLilv", pkgConfig: "lilv-0"),
        .target(name: "CLV2"),
        // A CLAP host: the ABI declared from the specification (Debian has no CLAP headers), and
        // the host's callbacks, which plugins call on their own threads.
        .target(name: "CCLAP", linkerSettings: [.linkedLibrary("dl")]),
        .systemLibrary(name: "CSamplerate", pkgConfig: "samplerate"),
        .systemLibrary(name: "CLiblo", pkgConfig: "liblo"),
        .systemLibrary(name: "CRubberBand", pkgConfig: "rubberband"),
        // sd-bus, for BlueZ's D-Bus API (its non-variadic calls; one thread owns a connection).
        .systemLibrary(name: "CSystemd", pkgConfig: "libsystemd"),
        .target(name: "CZitaConvolver", linkerSettings: [.linkedLibrary("zita-convolver"), .linkedLibrary("fftw3f")]),
        // liblsl's C API, loaded with dlopen (Debian has no liblsl; the pinned pylsl wheel carries it).
        .target(name: "CLSL", linkerSettings: [.linkedLibrary("dl")]),
        // LiteRT's C API, loaded with dlopen (Debian has no LiteRT; the pinned ai-edge-litert wheel carries it).
        .target(name: "CLiteRT", linkerSettings: [.linkedLibrary("dl")]),
        // Video frames through FFmpeg's libraries, loaded with dlopen (only a pose run needs them), their
        // error codes and options C macros.
        .target(name: "CVideo", linkerSettings: [.linkedLibrary("dl")]),
        // Ableton Link (header-only C++, Debian's ableton-link-dev on libasio-dev) behind a C interface.
        .target(name: "CLink", cxxSettings: [.define("LINK_PLATFORM_UNIX", to: "1"), .define("LINK_PLATFORM_LINUX", to: "1")],
                linkerSettings: [.linkedLibrary("atomic"), .linkedLibrary("pthread")]),
        // The commit the binary was built from, as a C string make writes (Swift has no -D with a value).
        .target(name: "CBuildStamp"),

        // Real-time primitives: the rings, the control messages, the clock, fixed buffers, the locked box.
        .target(name: "Realtime", dependencies: ["CProcessThread", .product(name: "Atomics", package: "swift-atomics")], swiftSettings: realtimeSettings),
        // The body's signals, DSP only and no I/O, for every input alike: R-peaks in an ECG and
        // their timelines, RR intervals' beats, a pulse wave's beats, EEG band powers, hands into regions.
        .target(name: "BodySignals", dependencies: ["Realtime"], swiftSettings: strict),
        // A user's files: the one error that names a file, line and field, and the regular-file rule.
        .target(name: "UserFiles", dependencies: ["CBuildStamp"], swiftSettings: strict),
        // What reaches the engine from outside, in no wire format: the address space and its routes,
        // the page's commands, every heart and EEG source's watch, the sensor DSP, the session formats.
        .target(name: "Inputs", dependencies: [
            "Realtime", "UserFiles", "BodySignals",
            .product(name: "Atomics", package: "swift-atomics"),
        ], swiftSettings: strict),
        // OSC over UDP through liblo: the input's thread, replies, the meters, the status query, the
        // session manager's protocol.
        .target(name: "OSC", dependencies: [
            "CLiblo", "Realtime", "Inputs", "BodySignals",
            .product(name: "Atomics", package: "swift-atomics"),
        ], swiftSettings: strict),
        // The body sensors: a Bluetooth LE central over BlueZ (sd-bus) on one sensor thread, the
        // devices' notifications decoded and turned into control messages in its own ring.
        .target(name: "Sensors", dependencies: [
            "CSystemd", "Realtime", "Inputs", "UserFiles", "BodySignals",
            .product(name: "Atomics", package: "swift-atomics"),
        ], swiftSettings: strict),
        // Camera pose: frames from a camera or a video (FFmpeg), BlazePose's two models through
        // LiteRT on a thread of its own, the landmarks and the fists the drum regions read.
        .target(name: "Pose", dependencies: [
            "CLiteRT", "CVideo", "Realtime", "UserFiles", "Inputs", "BodySignals", .product(name: "Atomics", package: "swift-atomics"),
        ], swiftSettings: poseSettings),
        // The voices: DSP only, no I/O.
        .target(name: "Voices", dependencies: ["Realtime", "CZitaConvolver", "CRubberBand"], swiftSettings: processPath),
        // Sound files: reading samples and tracks, writing WAV (libsndfile, libsamplerate).
        .target(name: "SoundFiles", dependencies: ["CSndfile", "CSamplerate", "UserFiles", "Voices"], swiftSettings: strict),
        // LV2 plugins through lilv: the world, instances, insert chains, the instrument voice, state.
        .target(name: "Plugins", dependencies: ["CCLAP", "CLilv", "CLV2", "CProcessThread", "Realtime", "UserFiles", "Voices"], swiftSettings: processPath),
        // The engine: its setup value, the process path and its parts, the handle other threads
        // hold, the mixer, meters and MIDI-out queues. It links neither libjack nor liblo: an
        // offline render needs neither.
        .target(name: "Engine", dependencies: [
            "Realtime", "UserFiles", "Voices", "Plugins",
            .product(name: "Atomics", package: "swift-atomics"),
        ], swiftSettings: processPath),
        // Lab Streaming Layer, an input beside the sensors: the lab's streams as bodies (an input
        // source) on the lab's clock, and the outlet handle `Runs/Outputs/LSLOutput` sends through.
        .target(name: "LSL", dependencies: [
            "CLSL", "Realtime", "UserFiles", "Inputs", "BodySignals",
            .product(name: "Atomics", package: "swift-atomics"),
        ], swiftSettings: strict),
        // Presets: the YAML, the voice-kind descriptors and field tables, the graph that makes a
        // setup from a preset, session sources.
        .target(name: "Presets", dependencies: [
            "Realtime", "UserFiles", "Inputs", "BodySignals", "Voices", "Plugins", "SoundFiles", "Engine",
            .product(name: "Atomics", package: "swift-atomics"),
            .product(name: "Yams", package: "Yams"),
        ], swiftSettings: strict),
        // The JACK backend: the client, the process host, the server, the frame clock, the timebase,
        // Ableton Link's peer, the MIDI ports' writer and the take's recorder.
        .target(name: "JackBackend", dependencies: [
            "CJack", "CLink", "Realtime", "UserFiles", "Inputs", "Voices", "Engine", "SoundFiles",
            .product(name: "Atomics", package: "swift-atomics"),
        ], swiftSettings: processPath),
        // The live page: the session's live picture, and an HTTP and WebSocket server on it; the
        // page's HTML, CSS and JavaScript are its resources.
        .target(name: "WebSurface", dependencies: [
            "Engine", "Presets", "JackBackend", "Realtime", "Inputs",
            .product(name: "Atomics", package: "swift-atomics"),
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "HummingbirdCore", package: "hummingbird"),
            .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ], resources: [.embedInCode("Page/index.html"), .embedInCode("Page/page.js"), .embedInCode("Page/page.css")], swiftSettings: strict),
        // Reports: the radial meters plot (SVG) and the render's web report (HTML).
        .target(name: "Reports", dependencies: ["Engine", "UserFiles"], swiftSettings: strict),
        // Renders: an offline render's life cycle (the engine period by period into files, stems,
        // events, the meters plot, the report, the watchdog). It links neither libjack nor liblo.
        .target(name: "Renders", dependencies: [
            "Pose", "Engine", "Presets", "SoundFiles", "Realtime", "UserFiles", "Inputs", "Voices", "Reports",
            .product(name: "Atomics", package: "swift-atomics"),
        ], swiftSettings: strict),
        // Runs: a live run's life cycle (the page's included), the study.
        .target(name: "Runs", dependencies: [
            "CJack", "Pose", "Renders", "Engine", "Presets", "Sensors", "LSL", "JackBackend", "SoundFiles", "Realtime", "UserFiles", "Inputs", "OSC", "WebSurface",
            .product(name: "Atomics", package: "swift-atomics"),
        ], swiftSettings: strict),
        .executableTarget(name: "pulsejack", dependencies: [
            "Runs", "Pose", "Renders", "Sensors", "LSL", "Engine", "Presets", "JackBackend", "Plugins", "SoundFiles", "UserFiles", "Inputs", "OSC", "WebSurface",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ], swiftSettings: strict),

        .executableTarget(name: "pulsejack-bench", dependencies: [
            "Runs", "Renders", "Engine", "Presets", "JackBackend", "Plugins", "SoundFiles", "Realtime", "UserFiles", "Inputs", "OSC", "CJack", "CAllocCounter", "TestSupport", "JackPeers", "WebSurface", "Sensors", "BodySignals", "Pose",
        ], path: "Benchmarks/PulsejackBench", swiftSettings: strict),

        // Test-only malloc interposer: counts allocations made inside real-time sections. Built
        // empty under ThreadSanitizer (`make test-tsan`), whose own start-up the interposer breaks.
        .target(name: "CAllocCounter", dependencies: ["CProcessThread"], path: "Tests/CAllocCounter", linkerSettings: [.linkedLibrary("dl")]),
        // Independent references for tests: a WAV reader of our own, a private jackd, a process runner.
        .target(name: "TestSupport", dependencies: ["Realtime", "Inputs", "OSC", "CJack", "JackPeers", "CAllocCounter"], path: "Tests/TestSupport", swiftSettings: strict),
        // Real JACK peers in the same process: an ear that records onsets, a MIDI pad.
        .target(name: "JackPeers", dependencies: ["CJack", .product(name: "Atomics", package: "swift-atomics")],
                path: "Tests/JackPeers", swiftSettings: strict),
        // Engines built without a preset, and a driver that runs one period by period.
        .target(name: "EngineFixtures", dependencies: ["Engine", "Plugins", "Voices", "Realtime", "Inputs", "TestSupport"],
                path: "Tests/EngineFixtures", swiftSettings: strict),
        .testTarget(name: "RealtimeTests", dependencies: ["Realtime", "TestSupport"], swiftSettings: strict),
        .testTarget(name: "BodySignalsTests", dependencies: ["BodySignals", "Realtime", "TestSupport"], swiftSettings: strict),
        .testTarget(name: "InputsTests", dependencies: [
            "Realtime", "UserFiles", "Inputs", "BodySignals", "TestSupport",
        ], swiftSettings: strict),
        .testTarget(name: "OSCTests", dependencies: [
            "Realtime", "Inputs", "OSC", "TestSupport", "Engine", "Presets", "EngineFixtures",
        ], swiftSettings: strict),
        .testTarget(name: "VoicesTests", dependencies: ["Voices"], swiftSettings: strict),
        .testTarget(name: "PoseTests", dependencies: ["Pose", "TestSupport", "Inputs", "Realtime", "BodySignals"], swiftSettings: strict),
        .testTarget(name: "LSLTests", dependencies: ["LSL", "Inputs", "Realtime", "TestSupport"], swiftSettings: strict),
        .testTarget(name: "SensorsTests", dependencies: ["Sensors", "BodySignals", "Realtime", "Inputs", "TestSupport"], swiftSettings: strict),
        .testTarget(name: "EngineTests", dependencies: [
            "Engine", "Pose", "Presets", "Plugins", "JackBackend", "SoundFiles", "Runs", "Renders", "Reports", "Realtime", "UserFiles", "Inputs", "OSC", "Voices", "Sensors", "CJack", "CAllocCounter",
            "TestSupport", "JackPeers", "EngineFixtures", .product(name: "Atomics", package: "swift-atomics"),
        ], swiftSettings: strict),
        .testTarget(name: "PresetsTests", dependencies: [
            "Presets", "Engine", "Renders", "Runs", "SoundFiles", "Realtime", "UserFiles", "Inputs", "Voices", "TestSupport", "EngineFixtures",
            .product(name: "Yams", package: "Yams"),
        ], swiftSettings: strict),
        .testTarget(name: "PluginsTests", dependencies: [
            "CLV2", "Plugins", "Engine", "UserFiles", "Presets", "Realtime", "Inputs", "TestSupport", "EngineFixtures",
        ], swiftSettings: strict),
        .testTarget(name: "JackBackendTests", dependencies: [
            "JackBackend", "Engine", "Presets", "Inputs", "CJack", "CLink", "TestSupport", "JackPeers", "EngineFixtures", "Realtime",
        ], swiftSettings: strict),
        .testTarget(name: "SoundFilesTests", dependencies: [
            "SoundFiles", "TestSupport",
        ], swiftSettings: strict),
        .testTarget(name: "RunsTests", dependencies: [
            "Runs", "Presets", "Sensors", "LSL", "Engine", "Realtime", "Inputs", "OSC", "CAllocCounter", "TestSupport", "WebSurface",
        ], swiftSettings: strict),
        .testTarget(name: "RendersTests", dependencies: [
            "Renders", "Engine", "Presets", "Realtime", "Inputs", "SoundFiles", "TestSupport",
        ], swiftSettings: strict),
        .testTarget(name: "ReportsTests", dependencies: ["Reports", "Engine"], swiftSettings: strict),
        .testTarget(name: "WebSurfaceTests", dependencies: ["WebSurface", "Inputs"], swiftSettings: strict),
        .testTarget(name: "IntegrationTests", dependencies: ["TestSupport", "Realtime", "Inputs", "OSC", "JackPeers", "CJack", "Reports"], swiftSettings: strict),
    ]
)
