// swift-tools-version: 6.2
// The iOS example of docs/CLIENT.md ("Using Switchboard in an iOS app"): a SwiftUI chat screen
// on `SwitchboardClient`, as an app target would hold it. The package depends on the
// repository's own package by path, as an app does on a local package; CI builds it for macOS
// and the iOS Simulator (.github/workflows/ci.yml), which is what keeps the example compiling
// against the real API.
import PackageDescription

let package = Package(
  name: "iOSChat",
  platforms: [.iOS(.v18), .macOS(.v15)],
  products: [.library(name: "ChatExample", targets: ["ChatExample"])],
  dependencies: [.package(name: "Switchboard", path: "../..")],
  targets: [
    .target(
      name: "ChatExample",
      dependencies: [.product(name: "SwitchboardClient", package: "Switchboard")],
      swiftSettings: [.swiftLanguageMode(.v6)])
  ]
)
