def solve(n, seed, start_epoch, epochs):
    base = list(range(n))
    orders = []
    for epoch in range(start_epoch, start_epoch + epochs):
        shift = (seed + epoch) % n
        orders.append(base[shift:] + base[:shift])
    return orders
