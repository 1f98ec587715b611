/// The load generator behind `switchboard bench` (being written).
public enum BenchPlaceholder {}
