// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "pulsejack",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "pulsejack", targets: ["pulsejack"]),
        .executable(name: "pulsejack-bench", targets: ["pulsejack-bench"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-atomics", from: "1.3.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/jpsim/Yams", from: "5.0.1"),
    ],
    targets: [
        // Thin C shims: only what Swift cannot call directly.
        .target(name: "CJack", linkerSettings: [.linkedLibrary("jack")]),
        .systemLibrary(name: "CSndfile", pkgConfig: "sndfile"),
        .systemLibrary(name: "CSamplerate", pkgConfig: "samplerate"),
        .systemLibrary(name: "CLiblo", pkgConfig: "liblo"),
        .systemLibrary(name: "CRubberBand", pkgConfig: "rubberband"),
        .target(name: "CZitaConvolver", linkerSettings: [.linkedLibrary("zita-convolver"), .linkedLibrary("fftw3f")]),

        .target(name: "Control", dependencies: [
            "CLiblo",
            .product(name: "Atomics", package: "swift-atomics"),
        ]),
        .target(name: "Voices", dependencies: ["CZitaConvolver", "CRubberBand"]),
        .target(name: "JackEngine", dependencies: [
            "CJack", "CSndfile", "CSamplerate", "Control", "Voices",
            .product(name: "Atomics", package: "swift-atomics"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "Yams", package: "Yams"),
        ]),
        .executableTarget(name: "pulsejack", dependencies: [
            "JackEngine", "Control", "Voices",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "Logging", package: "swift-log"),
        ]),

        .executableTarget(name: "pulsejack-bench", dependencies: [
            "JackEngine", "Control", "CJack", "CAllocCounter", "TestSupport", "JackPeers",
            .product(name: "Atomics", package: "swift-atomics"),
        ], path: "Benchmarks/PulsejackBench"),

        // Test-only malloc interposer: counts allocations made inside real-time sections.
        .target(name: "CAllocCounter", path: "Tests/CAllocCounter", linkerSettings: [.linkedLibrary("dl")]),
        // Independent references for tests: a WAV reader of our own, a private jackd, a process runner.
        .target(name: "TestSupport", dependencies: ["Control"], path: "Tests/TestSupport"),
        // Real JACK peers in the same process: an ear that records onsets, a MIDI pad.
        .target(name: "JackPeers", dependencies: ["CJack", .product(name: "Atomics", package: "swift-atomics")],
                path: "Tests/JackPeers"),
        .testTarget(name: "ControlTests", dependencies: ["Control", "TestSupport"]),
        .testTarget(name: "VoicesTests", dependencies: ["Voices"]),
        .testTarget(name: "JackEngineTests", dependencies: [
            "JackEngine", "Control", "Voices", "CJack", "CAllocCounter", "TestSupport", "JackPeers",
        ]),
        .testTarget(name: "IntegrationTests", dependencies: ["TestSupport", "Control", "JackPeers"]),
    ],
    swiftLanguageModes: [.v5]
)
