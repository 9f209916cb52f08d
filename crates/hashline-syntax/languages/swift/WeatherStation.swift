// A weather station's readings: sensors, units, daily summaries and alerts.
import Foundation

/// The most readings a station keeps in memory.
let maxReadings = 10_000

/// A temperature in degrees Celsius.
typealias Celsius = Double

/// Where a reading came from.
enum SensorKind: String, CaseIterable {
    case thermometer
    case barometer
    case anemometer

    /// The unit a sensor of this kind reports in.
    var unit: String {
        switch self {
        case .thermometer: return "°C"
        case .barometer: return "hPa"
        case .anemometer: return "m/s"
        }
    }
}

/// Why a reading was refused.
enum ReadingError: Error {
    case outOfRange(value: Double, allowed: ClosedRange<Double>)
    case stale(age: TimeInterval)
}

/// Something that produces readings.
protocol Sensor {
    /// The sensor's identifier, unique per station.
    var id: String { get }
    var kind: SensorKind { get }

    func read() throws -> Double
}

/// One measurement, as stored.
struct Reading: Equatable, Codable {
    let sensorID: String
    let value: Double
    let takenAt: Date

    /// Whether the reading is older than `limit` seconds at `now`.
    func isStale(at now: Date, limit: TimeInterval = 600) -> Bool {
        now.timeIntervalSince(takenAt) > limit
    }
}

/// A day's minimum, maximum and mean of one sensor.
struct DailySummary {
    var minimum: Double
    var maximum: Double
    var mean: Double
    var count: Int

    init(values: [Double]) {
        minimum = values.min() ?? .nan
        maximum = values.max() ?? .nan
        count = values.count
        mean = count == 0 ? .nan : values.reduce(0, +) / Double(count)
    }

    /// The spread between the day's extremes.
    var range: Double { maximum - minimum }
}

/// The station: its sensors, the readings they took, and the alerts they raised.
final class Station {
    /// The range a thermometer reading must fall in to be kept.
    static let plausibleTemperature: ClosedRange<Double> = -60...60

    let name: String
    private(set) var readings: [Reading] = []
    private var sensors: [String: Sensor] = [:]
    var onAlert: ((String) -> Void)?

    init(name: String) {
        self.name = name
    }

    convenience init(name: String, sensors: [Sensor]) {
        self.init(name: name)
        sensors.forEach { register($0) }
    }

    deinit {
        onAlert = nil
    }

    func register(_ sensor: Sensor) {
        sensors[sensor.id] = sensor
    }

    /// Reads every sensor once and keeps the plausible values.
    @discardableResult
    func poll(at now: Date = Date()) -> [ReadingError] {
        var errors: [ReadingError] = []
        for sensor in sensors.values {
            do {
                let value = try sensor.read()
                try record(Reading(sensorID: sensor.id, value: value, takenAt: now), kind: sensor.kind)
            } catch let error as ReadingError {
                errors.append(error)
            } catch {
                onAlert?("sensor \(sensor.id) failed")
            }
        }
        return errors
    }

    func record(_ reading: Reading, kind: SensorKind) throws {
        if kind == .thermometer && !Station.plausibleTemperature.contains(reading.value) {
            throw ReadingError.outOfRange(value: reading.value, allowed: Station.plausibleTemperature)
        }
        readings.append(reading)
        if readings.count > maxReadings {
            readings.removeFirst(readings.count - maxReadings)
        }
    }

    func record(_ readings: [Reading], kind: SensorKind) throws {
        for reading in readings {
            try record(reading, kind: kind)
        }
    }

    /// The readings of one sensor on the calendar day of `day`.
    func summary(of sensorID: String, on day: Date, calendar: Calendar = .current) -> DailySummary {
        func sameDay(_ reading: Reading) -> Bool {
            calendar.isDate(reading.takenAt, inSameDayAs: day)
        }

        let values = readings.filter { $0.sensorID == sensorID && sameDay($0) }.map(\.value)
        return DailySummary(values: values)
    }

    subscript(sensorID: String) -> [Reading] {
        readings.filter { $0.sensorID == sensorID }
    }

    @available(*, deprecated, message: "Use summary(of:on:calendar:)")
    func dailyMean(of sensorID: String) -> Double {
        summary(of: sensorID, on: Date()).mean
    }
}

extension Station: CustomStringConvertible {
    var description: String {
        "\(name): \(sensors.count) sensors, \(readings.count) readings"
    }

    /// Raises an alert when the last reading of a sensor passes `threshold`.
    func checkThreshold(_ threshold: Double, for sensorID: String) {
        guard let last = self[sensorID].last else {
            return
        }
        if last.value > threshold {
            onAlert?("\(sensorID) at \(last.value), over \(threshold)")
        }
    }
}

/// Converts a Celsius temperature to Fahrenheit.
func fahrenheit(_ celsius: Celsius) -> Double {
    celsius * 9 / 5 + 32
}

/// Converts a Fahrenheit temperature back.
func celsius(fromFahrenheit value: Double) -> Celsius {
    (value - 32) * 5 / 9
}
