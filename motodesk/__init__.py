"""MotoDesk: permits of mototáxi, motoboy and moto-frete under Lei nº 4.883/2017 of Patrocínio-MG."""

__version__ = "0.1.0"
