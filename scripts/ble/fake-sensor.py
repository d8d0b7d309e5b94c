#!/usr/bin/env python3
"""A fake Bluetooth LE body sensor for pulsejack's tests: a GATT peripheral registered with
BlueZ's D-Bus API (BlueZoo on a private bus in the tests) on one adapter, advertising its
service, so that pulsejack discovers, connects and subscribes on another.

  fake-sensor.py --adapter hci1 --name "Polar H10 TEST" strap --rr FILE [--battery 87]
      The Heart Rate Service (0x180D) with the Battery Service: once subscribed, it plays the
      RR intervals in FILE (seconds, one a line: a real recording) as a strap does — the heart
      beats on its own timeline, and once a second a measurement (encoded by Bumble's
      HeartRateService.HeartRateMeasurement) carries the intervals of the beats since the last.
  fake-sensor.py ... raw --hex FILE [--interval 0.2]
      The Heart Rate Service sending each line of FILE (hex bytes, malformed ones included).
  fake-sensor.py --adapter hci1 --name "Muse-TEST" muse [--calm 4] [--seconds 10]
      A Muse headband (service 0xFE8D): once "d" is written to its control characteristic, its
      four EEG characteristics (TP9, AF7, AF8, TP10) stream 256 Hz of known EEG — for --calm
      seconds an alpha rhythm (10 Hz, 4 µV) over a beta one (20 Hz, 2 µV), then the other way
      round; absolute band powers near 0.9 and 0.3 — 12 samples of 12 bits a notification after
      a 16-bit sequence number, packed here on their own.

  fake-sensor.py --adapter hci1 --name "Polar H10 TEST" h10 --ecg FILE [--refuse STATUS]
      A Polar H10: the Heart Rate Service (BPM and contact, once a second) and Polar's
      measurement data (PMD). Once the ECG start command is written to the control point, it
      answers F0 02 00 <status> (0 unless --refuse) and, started, streams the ECG in FILE
      (scripts/ble/ecg-130.py's JSON: 130 Hz, µV) as an H10 does: 73 samples a notification,
      every 73/130 s, behind a 64-bit time stamp (ns, the sensor's own clock) of the last one.

It prints one JSON line per notification on stdout: the wall-clock time it was sent
("sent", time.time()), the bytes, and for a strap the wall-clock times of the beats whose
intervals it carried ("beats"), so a test or the bench knows where the true beats fell.
"""
import argparse
import asyncio
import json
import sys
import time

from dbus_fast import BusType, Variant
from dbus_fast.aio import MessageBus
from dbus_fast.service import PropertyAccess, ServiceInterface, dbus_property, method

from bumble.profiles.heart_rate_service import HeartRateService

ROOT = "/org/pulsejack/fake"


def sig(short):
    return f"0000{short:04x}-0000-1000-8000-00805f9b34fb"


class ObjectManager(ServiceInterface):
    def __init__(self, objects):
        super().__init__("org.freedesktop.DBus.ObjectManager")
        self.objects = objects

    @method()
    def GetManagedObjects(self) -> "a{oa{sa{sv}}}":
        return {path: {iface.name: iface.properties() for iface in ifaces} for path, ifaces in self.objects.items()}


class Service(ServiceInterface):
    def __init__(self, uuid):
        super().__init__("org.bluez.GattService1")
        self.uuid = uuid

    def properties(self):
        return {"UUID": Variant("s", self.uuid), "Primary": Variant("b", True)}

    @dbus_property(access=PropertyAccess.READ)
    def UUID(self) -> "s":
        return self.uuid

    @dbus_property(access=PropertyAccess.READ)
    def Primary(self) -> "b":
        return True


class Characteristic(ServiceInterface):
    def __init__(self, uuid, service, flags, value=b""):
        super().__init__("org.bluez.GattCharacteristic1")
        self.uuid, self.service, self.flags, self.value = uuid, service, flags, value
        self.notifying = asyncio.Event()

    def properties(self):
        return {"UUID": Variant("s", self.uuid), "Service": Variant("o", self.service),
                "Flags": Variant("as", self.flags), "Value": Variant("ay", self.value)}

    @dbus_property(access=PropertyAccess.READ)
    def UUID(self) -> "s":
        return self.uuid

    @dbus_property(access=PropertyAccess.READ)
    def Service(self) -> "o":
        return self.service

    @dbus_property(access=PropertyAccess.READ)
    def Flags(self) -> "as":
        return self.flags

    @dbus_property(access=PropertyAccess.READ)
    def Value(self) -> "ay":
        return self.value

    @method()
    def ReadValue(self, options: "a{sv}") -> "ay":
        return self.value

    @method()
    def WriteValue(self, value: "ay", options: "a{sv}"):
        self.value = bytes(value)

    @method()
    def StartNotify(self):
        self.notifying.set()

    @method()
    def StopNotify(self):
        self.notifying.clear()

    @method()
    def Confirm(self):
        pass

    def notify(self, value):
        self.value = bytes(value)
        self.emit_properties_changed({"Value": self.value})


class Advertisement(ServiceInterface):
    def __init__(self, name, uuids):
        super().__init__("org.bluez.LEAdvertisement1")
        self.local_name, self.uuids = name, uuids

    @dbus_property(access=PropertyAccess.READ)
    def Type(self) -> "s":
        return "peripheral"

    @dbus_property(access=PropertyAccess.READ)
    def ServiceUUIDs(self) -> "as":
        return self.uuids

    @dbus_property(access=PropertyAccess.READ)
    def LocalName(self) -> "s":
        return self.local_name

    @dbus_property(access=PropertyAccess.READ)
    def Discoverable(self) -> "b":
        return True

    @method()
    def Release(self):
        pass


MUSE_EEG = [f"273e000{n}-4c4d-454d-96be-f03bac821358" for n in (3, 4, 5, 6)]
MUSE_CONTROL = "273e0001-4c4d-454d-96be-f03bac821358"


def muse_packet(sequence, raws):
    """A sequence number (16 bits, big-endian) and 12 samples of 12 bits, MSB first."""
    bits = f"{sequence:016b}" + "".join(f"{raw:012b}" for raw in raws)
    return bytes(int(bits[i:i + 8], 2) for i in range(0, len(bits), 8))


async def play_muse(control, channels, calm, seconds):
    import math
    import random
    await control.streaming.wait()
    rng = random.Random(27)
    start, sequence, sample = time.time(), 0, 0
    while sample < seconds * 256:
        for index, channel in enumerate(channels):
            raws = []
            for n in range(sample, sample + 12):
                t = n / 256
                alpha, beta = (4, 2) if t < calm else (2, 4)
                microvolts = (800 + alpha * math.sin(2 * math.pi * 10 * t + index) + beta * math.sin(2 * math.pi * 20 * t + index)
                              + rng.gauss(0, 0.3))
                raws.append(max(0, min(4095, round(microvolts / 0.48828125) + 2048)))
            channel.notify(muse_packet(sequence, raws))
        emit({"sent": time.time(), "sequence": sequence, "first_sample": sample})
        sequence = (sequence + 1) % 65536
        sample += 12
        await asyncio.sleep(max(0, start + sample / 256 - time.time()))


class MuseControl(Characteristic):
    """The Muse's control characteristic: "d" (02 64 0a) starts the stream, "h" halts it."""

    def __init__(self, uuid, service):
        super().__init__(uuid, service, ["write-without-response", "write", "notify"])
        self.streaming = asyncio.Event()

    @method()
    def WriteValue(self, value: "ay", options: "a{sv}"):
        command = bytes(value)[1:].decode(errors="replace").strip()
        emit({"command": command})
        if command == "d":
            self.streaming.set()
        elif command == "h":
            self.streaming.clear()


PMD_SERVICE = "fb005c80-02e7-f387-1cad-8acd2d8df0c8"
PMD_CONTROL = "fb005c81-02e7-f387-1cad-8acd2d8df0c8"
PMD_DATA = "fb005c82-02e7-f387-1cad-8acd2d8df0c8"
ECG_START = bytes([0x02, 0x00, 0x00, 0x01, 0x82, 0x00, 0x01, 0x01, 0x0E, 0x00])


class PolarControl(Characteristic):
    """The PMD control point: the ECG start command is answered F0 02 00 <status>."""

    def __init__(self, uuid, service, refuse):
        super().__init__(uuid, service, ["write", "indicate", "notify"])
        self.streaming = asyncio.Event()
        self.refuse = refuse

    @method()
    def WriteValue(self, value: "ay", options: "a{sv}"):
        command = bytes(value)
        emit({"command": command.hex()})
        if command[:1] == b"\x02":
            self.notify(bytes([0xF0, 0x02, command[1] if len(command) > 1 else 0, self.refuse, 0x00]))
            if command == ECG_START and self.refuse == 0:
                self.streaming.set()
        elif command[:1] == b"\x03":
            self.streaming.clear()


def ecg_frame(timestamp, samples):
    """Type 0 (ECG), the last sample's time stamp (ns, little-endian), frame type 0, 3-byte samples."""
    return (bytes([0]) + timestamp.to_bytes(8, "little") + bytes([0])
            + b"".join((value & 0xFFFFFF).to_bytes(3, "little") for value in samples))


async def play_h10(control, data, measurement, ecg_file):
    recording = json.load(open(ecg_file))
    samples, rate, per_frame = recording["samples"], recording["rate"], 73
    await control.streaming.wait()
    # The sensor's clock: ns since its own epoch (2000 for an H10), unrelated to ours.
    epoch = 820_000_000_000_000_000
    start = time.time()
    emit({"ecg_start": start, "rate": rate})
    sent, next_heart = 0, 1.0
    while sent < len(samples):
        count = min(per_frame, len(samples) - sent)
        await asyncio.sleep(max(0, start + (sent + count) / rate - time.time()))
        last = sent + count - 1
        data.notify(ecg_frame(epoch + round(last * 1e9 / rate), samples[sent:sent + count]))
        emit({"sent": time.time(), "first_sample": sent, "count": count})
        sent += count
        if sent / rate >= next_heart:
            next_heart += 1.0
            measurement.notify(bytes(HeartRateService.HeartRateMeasurement(
                heart_rate=70, sensor_contact_detected=True, energy_expended=None, rr_intervals=[])))
            emit({"sent": time.time(), "heart_rate": 70})


def emit(record):
    print(json.dumps(record), flush=True)


async def play_strap(measurement, rr_file, start_delay):
    intervals = [float(line.split(",")[-1]) for line in open(rr_file) if line.strip() and not line.startswith("#")]
    await measurement.notifying.wait()
    await asyncio.sleep(start_delay)
    # The heart's beats on the wall clock, from now; a measurement each second with the
    # intervals (k/1024 s, as a strap measures them) of the beats since the last one.
    start = time.time()
    beats, t = [], start
    for rr in intervals:
        t += rr
        beats.append((t, rr))
    index, tick = 0, start
    while index < len(beats):
        tick += 1.0
        await asyncio.sleep(max(0, tick - time.time()))
        sent = []
        while index < len(beats) and beats[index][0] <= tick:
            sent.append(beats[index])
            index += 1
        rrs = [round(rr * 1024) / 1024 for _, rr in sent]
        bpm = round(60 / (sum(rrs) / len(rrs))) if rrs else 0
        value = bytes(HeartRateService.HeartRateMeasurement(
            heart_rate=bpm, sensor_contact_detected=True, energy_expended=None, rr_intervals=rrs))
        measurement.notify(value)
        emit({"sent": time.time(), "bytes": value.hex(), "beats": [b for b, _ in sent], "rr": rrs})


async def play_raw(measurement, hex_file, interval):
    lines = [line.strip() for line in open(hex_file) if line.strip()]
    await measurement.notifying.wait()
    for line in lines:
        await asyncio.sleep(interval)
        value = bytes.fromhex(line)
        measurement.notify(value)
        emit({"sent": time.time(), "bytes": value.hex()})


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--adapter", default="hci1")
    parser.add_argument("--name", default="Fake Strap")
    parser.add_argument("--battery", type=int, default=87)
    parser.add_argument("--start-delay", type=float, default=0.0)
    kinds = parser.add_subparsers(dest="kind", required=True)
    strap = kinds.add_parser("strap")
    strap.add_argument("--rr", required=True)
    raw = kinds.add_parser("raw")
    raw.add_argument("--hex", required=True)
    raw.add_argument("--interval", type=float, default=0.2)
    muse = kinds.add_parser("muse")
    muse.add_argument("--calm", type=float, default=4.0)
    muse.add_argument("--seconds", type=float, default=10.0)
    h10 = kinds.add_parser("h10")
    h10.add_argument("--ecg", required=True)
    h10.add_argument("--refuse", type=int, default=0)
    args = parser.parse_args()

    bus = await MessageBus(bus_type=BusType.SYSTEM).connect()
    objects = {}

    def export(path, iface):
        bus.export(path, iface)
        objects.setdefault(path, []).append(iface)

    heart_path, battery_path = f"{ROOT}/service0", f"{ROOT}/service1"
    if args.kind == "muse":
        export(heart_path, Service(sig(0xFE8D)))
        control = MuseControl(MUSE_CONTROL, heart_path)
        export(f"{heart_path}/char0", control)
        channels = [Characteristic(uuid, heart_path, ["notify"]) for uuid in MUSE_EEG]
        for index, channel in enumerate(channels):
            export(f"{heart_path}/char{index + 1}", channel)
        advertised = [sig(0xFE8D)]
    elif args.kind == "h10":
        export(heart_path, Service(sig(0x180D)))
        measurement = Characteristic(sig(0x2A37), heart_path, ["notify"])
        export(f"{heart_path}/char0", measurement)
        pmd_path = f"{ROOT}/service2"
        export(pmd_path, Service(PMD_SERVICE))
        control = PolarControl(PMD_CONTROL, pmd_path, args.refuse)
        export(f"{pmd_path}/char0", control)
        data = Characteristic(PMD_DATA, pmd_path, ["notify"])
        export(f"{pmd_path}/char1", data)
        advertised = [sig(0x180D), PMD_SERVICE]
    else:
        export(heart_path, Service(sig(0x180D)))
        measurement = Characteristic(sig(0x2A37), heart_path, ["notify"])
        export(f"{heart_path}/char0", measurement)
        advertised = [sig(0x180D)]
    export(battery_path, Service(sig(0x180F)))
    export(f"{battery_path}/char0", Characteristic(sig(0x2A19), battery_path, ["read"], bytes([args.battery])))
    bus.export(ROOT, ObjectManager(objects))
    advertisement = Advertisement(args.name, advertised)
    bus.export(f"{ROOT}/advertisement", advertisement)

    adapter = f"/org/bluez/{args.adapter}"
    introspection = await bus.introspect("org.bluez", adapter)
    proxy = bus.get_proxy_object("org.bluez", adapter, introspection)
    await proxy.get_interface("org.bluez.GattManager1").call_register_application(ROOT, {})
    await proxy.get_interface("org.bluez.LEAdvertisingManager1").call_register_advertisement(f"{ROOT}/advertisement", {})
    emit({"ready": time.time()})

    if args.kind == "strap":
        await play_strap(measurement, args.rr, args.start_delay)
    elif args.kind == "muse":
        await play_muse(control, channels, args.calm, args.seconds)
    elif args.kind == "h10":
        await play_h10(control, data, measurement, args.ecg)
    else:
        await play_raw(measurement, args.hex, args.interval)
    emit({"done": time.time()})
    await bus.wait_for_disconnect()


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        sys.exit(0)
