# Writes the fake sysfs trees of tests/data/sysfs (the files are committed; rerun after a change):
#   python3 tests/data/sysfs/make_trees.py tests/data/sysfs
import os, sys
root = sys.argv[1]

def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)

CPU = """cpu_cores_count 96
simd_count 0
mem_banks_count 1
caches_count 0
io_links_count {links}
p2p_links_count 0
cpu_core_id_base 0
simd_id_base 0
max_waves_per_simd 0
lds_size_in_kb 0
gds_size_in_kb 0
num_gws 0
wave_front_size 0
array_count 0
simd_arrays_per_engine 0
cu_per_simd_array 0
simd_per_cu 0
max_slots_scratch_cu 0
gfx_target_version 0
vendor_id 0
device_id 0
location_id 0
domain 0
drm_render_minor 0
hive_id 0
num_sdma_engines 0
num_sdma_xgmi_engines 0
num_sdma_queues_per_engine 0
num_cp_queues 0
max_engine_clk_ccompute 2450
"""

GPU = """cpu_cores_count 0
simd_count {simd}
mem_banks_count 1
caches_count {caches}
io_links_count 1
p2p_links_count {p2p}
cpu_core_id_base 0
simd_id_base {simd_base}
max_waves_per_simd 8
lds_size_in_kb {lds}
gds_size_in_kb 0
num_gws 64
wave_front_size {wave}
array_count {arrays}
simd_arrays_per_engine 1
cu_per_simd_array {cu_per_array}
simd_per_cu {simd_per_cu}
max_slots_scratch_cu 32
gfx_target_version {gfx}
vendor_id 4098
device_id {dev}
location_id {loc}
domain 0
drm_render_minor {minor}
hive_id {hive}
num_sdma_engines 2
num_sdma_xgmi_engines 6
num_sdma_queues_per_engine 8
num_cp_queues {cpq}
max_engine_clk_fcompute {clk}
local_mem_size 0
fw_version 177
capability 746293888
debug_prop 1495
sdma_fw_version 22
unique_id {uid}
num_xcc {xcc}
max_engine_clk_ccompute 2450
"""

BANK = """heap_type 1
size_in_bytes {size}
flags 0
width 8192
mem_clk_max {mclk}
"""

HOST_BANK = """heap_type 0
size_in_bytes 1622661492736
flags 0
width 72
mem_clk_max 6000
"""

SPECS = {
    # device id, gfx_target_version, simd_count (SPX), HBM bytes as KFD reports it, clocks
    "MI300X": dict(dev=0x74A1, gfx=90402, simd=1216, mem=206141652992, clk=2100, mclk=1300, lds=64, caches=418),
    "MI325X": dict(dev=0x74A5, gfx=90402, simd=1216, mem=274861129728, clk=2100, mclk=1300, lds=64, caches=418),
    "MI355X": dict(dev=0x75A3, gfx=90500, simd=1024, mem=309220868096, clk=2400, mclk=1900, lds=160, caches=354),
}

def cpu_node(tree, links):
    base = f"{tree}/class/kfd/kfd/topology/nodes/0"
    write(f"{base}/properties", CPU.format(links=links))
    write(f"{base}/mem_banks/0/properties", HOST_BANK)

def gpu_node(tree, node, spec, bus, minor, hive, uid, xcc=8, parts=1, simd_per_cu=4, wave=64, p2p=7):
    s = SPECS[spec] if isinstance(spec, str) else spec
    base = f"{tree}/class/kfd/kfd/topology/nodes/{node}"
    write(f"{base}/properties", GPU.format(
        simd=s["simd"] // parts, caches=s["caches"] // parts, p2p=p2p, simd_base=2147487744 + 16 * node,
        lds=s["lds"], wave=wave, arrays=max(1, 32 // parts), cu_per_array=10, simd_per_cu=simd_per_cu,
        gfx=s["gfx"], dev=s["dev"], loc=bus << 8, minor=minor, hive=hive, cpq=120 // parts, clk=s["clk"],
        uid=uid, xcc=xcc))
    write(f"{base}/mem_banks/0/properties", BANK.format(size=s["mem"] // parts, mclk=s["mclk"]))

def drm(tree, name, dev, bus, product=None, vram=None, vendor=0x1002, driver="amdgpu"):
    base = f"{tree}/class/drm/{name}/device"
    write(f"{base}/vendor", f"0x{vendor:04x}\n")
    write(f"{base}/device", f"0x{dev:04x}\n")
    write(f"{base}/uevent", f"DRIVER={driver}\nPCI_CLASS={'30000' if driver != 'amdgpu' else '12000'}\nPCI_ID={vendor:04X}:{dev:04X}\n"
          f"PCI_SUBSYS_ID={vendor:04X}:{dev:04X}\nPCI_SLOT_NAME=0000:{bus:02x}:00.0\n")
    if product:
        write(f"{base}/product_name", product + "\n")
    if vram:
        write(f"{base}/mem_info_vram_total", f"{vram}\n")

def node_tree(name, spec, buses, product):
    tree = f"{root}/{name}"
    cpu_node(tree, len(buses))
    for i, bus in enumerate(buses):
        minor = 128 + 8 * i
        gpu_node(tree, i + 1, spec, bus, minor, hive=7163428511902551555, uid=9013413437446478000 + i,
                 p2p=len(buses) - 1)
        drm(tree, f"renderD{minor}", SPECS[spec]["dev"], bus, product, SPECS[spec]["mem"])

node_tree("mi300x", "MI300X", [0x0c, 0x22], None)
node_tree("mi325x", "MI325X", [0x05, 0x15], "AMD Instinct MI325X")
node_tree("mi355x", "MI355X", [0x05, 0x15, 0x65, 0x75, 0x85, 0x95, 0xe5, 0xf5], "AMD Instinct MI355X")

# One MI300X in CPX mode: eight KFD nodes of 38 CUs each sharing the parent's PCI location;
# only the first partition's render node is the PCI device (the others are amdgpu_xcp
# platform devices without PCI ids), so partitions 1..7 take their device id from KFD.
tree = f"{root}/mi300x_cpx"
cpu_node(tree, 8)
for p in range(8):
    gpu_node(tree, p + 1, "MI300X", 0x0c, 128 + p, hive=0, uid=9013413437446478000, xcc=1, parts=8, p2p=0)
drm(tree, "renderD128", 0x74A1, 0x0c, "AMD Instinct MI300X", SPECS["MI300X"]["mem"])

# A workstation: one MI300X and one Radeon PRO W7900 (gfx1100, 0x7448, 96 CUs of 2 SIMDs):
# the Radeon is an unknown device, listed with its raw facts and no platform.
tree = f"{root}/mixed"
cpu_node(tree, 2)
gpu_node(tree, 1, "MI300X", 0x0c, 128, hive=0, uid=9013413437446478000, p2p=0)
drm(tree, "renderD128", 0x74A1, 0x0c, "AMD Instinct MI300X", SPECS["MI300X"]["mem"])
w7900 = dict(dev=0x7448, gfx=110000, simd=192, mem=48301604864, clk=2495, mclk=1124, lds=64, caches=90)
gpu_node(tree, 2, w7900, 0x03, 129, hive=0, uid=0, xcc=1, simd_per_cu=2, wave=32, p2p=0)
drm(tree, "renderD129", 0x7448, 0x03, "AMD Radeon PRO W7900", w7900["mem"])

# amdgpu without KFD: DRM cards only (card0 is the server's ASPEED BMC display, not AMD).
tree = f"{root}/drm_only"
drm(tree, "card0", 0x2000, 0x02, vendor=0x1a03, driver="ast")
drm(tree, "card1", 0x75A3, 0x05, "AMD Instinct MI355X", SPECS["MI355X"]["mem"])

# KFD with the CPU node only (no GPU).
cpu_node(f"{root}/cpu_only", 0)
