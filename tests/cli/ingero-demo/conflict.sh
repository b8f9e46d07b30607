ingero demo --bpf --no-bpf incident
