"""Heart Rate Measurement notifications as Bumble encodes them: one JSON object per case on
stdout, its fields and the bytes (hex). The reference for pulsejack's decoder (SensorsTests)."""
import json

from bumble.profiles.heart_rate_service import HeartRateService

Measurement = HeartRateService.HeartRateMeasurement

# (bpm, contact: None = unsupported | True | False, energy kJ or None, RR in 1/1024 s or None).
CASES = [
    (72, None, None, None),
    (72, True, None, None),
    (58, False, None, None),
    (255, True, None, None),
    (256, True, None, None),        # no longer fits 8 bits: 16-bit heart rate
    (300, None, 1234, None),
    (61, True, 0, [1007]),
    (90, True, None, [683, 682]),
    (150, True, 65535, [410, 409, 410]),
    (180, False, None, [341, 342, 341, 341]),
    (70, True, None, []),           # the RR flag with no intervals
    (400, True, 20, [1, 65535]),
]

for bpm, contact, energy, rr in CASES:
    # Bumble takes RR intervals in seconds and truncates int(rr * 1024): exact k/1024 values.
    measurement = Measurement(bpm, sensor_contact_detected=contact, energy_expended=energy,
                              rr_intervals=None if rr is None else [k / 1024 for k in rr])
    print(json.dumps({"bpm": bpm, "contact": contact, "energy": energy, "rr": rr or [],
                      "hex": bytes(measurement).hex()}))
